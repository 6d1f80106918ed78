package dev.warden.architecture;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * No package depends on itself through others, in any module (STYLE 1: packages by concept, each with one
 * direction of use). The modules themselves cannot form cycles: Maven refuses them.
 */
@AnalyzeClasses(packages = "dev.warden", importOptions = ImportOption.DoNotIncludeTests.class)
class PackageCyclesTest {
    @ArchTest
    static final ArchRule apiPackagesHaveNoCycles = slices().matching("dev.warden.api.(*)..")
            .should().beFreeOfCycles();

    @ArchTest
    static final ArchRule launcherPackagesHaveNoCycles = slices().matching("dev.warden.launcher.(*)..")
            .should().beFreeOfCycles();

    @ArchTest
    static final ArchRule sinksPackagesHaveNoCycles = slices().matching("dev.warden.sinks.(*)..")
            .should().beFreeOfCycles();

    @ArchTest
    static final ArchRule pipelinePackagesHaveNoCycles = slices().matching("dev.warden.pipeline.(*)..")
            .should().beFreeOfCycles();

    @ArchTest
    static final ArchRule authorizerPackagesHaveNoCycles = slices().matching("dev.warden.authorizer.(*)..")
            .should().beFreeOfCycles();
}
