package dev.warden.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The API tier reads what the sinks publish (their names, counters and health), never a sink's own classes:
 * the launcher wires the writers; the HTTP tier only reads their state.
 */
@AnalyzeClasses(packages = "dev.warden", importOptions = ImportOption.DoNotIncludeTests.class)
class ModuleSurfacesTest {
    @ArchTest
    static final ArchRule theApiTierDoesNotReachIntoSinkWriters = noClasses()
            .that()
            .resideInAPackage("dev.warden.api..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("dev.warden.sinks.postgres..", "dev.warden.sinks.streamstore..")
            .because(
                    "the API reads sink state through dev.warden.pipeline.contract.SinkNames and the runtime's counters");

    @ArchTest
    static final ArchRule theEngineStaysPure = noClasses()
            .that()
            .resideInAPackage("dev.warden.authorizer.engine..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                    "org.apache.kafka..",
                    "io.helidon..",
                    "java.sql..",
                    "javax.sql..",
                    "dev.warden.api..",
                    "dev.warden.sinks..",
                    "dev.warden.pipeline..");
}
