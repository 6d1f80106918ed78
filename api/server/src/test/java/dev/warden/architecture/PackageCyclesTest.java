package dev.warden.architecture;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * No package depends on itself through others, at any depth and in any module: every package is a slice of its own
 * ({@code dev.warden.api.oauth} and {@code dev.warden.api.oauth.token} are two), so a cycle between a package and
 * its subpackages fails as well as one between siblings. Packages are by concept, each with one direction of use.
 * The modules themselves cannot form cycles: Maven refuses them.
 */
@AnalyzeClasses(
        packages = "dev.warden",
        importOptions = {ImportOption.DoNotIncludeTests.class, PackageCyclesTest.DoNotIncludeTestJars.class})
class PackageCyclesTest {
    /** Test code that reaches the classpath as a test-jar (warden-embedded's SharedInfra and its tests). */
    static final class DoNotIncludeTestJars implements ImportOption {
        @Override
        public boolean includes(Location location) {
            return !location.contains("-tests.jar");
        }
    }

    @ArchTest
    static final ArchRule noPackageDependsOnItselfThroughOthers =
            slices().matching("dev.warden.(**)").should().beFreeOfCycles();
}
