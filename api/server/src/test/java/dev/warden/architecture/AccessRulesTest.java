package dev.warden.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.warden.api.access.Principal;

/**
 * Who may do what lives in one package (ARCHITECTURE, Access): only {@code access} (the policy) and
 * {@code auth} (where credentials become principals) tell an administrator from an agent; everything else
 * asks {@code AccessPolicy}. A new switch on the kind of caller anywhere else fails this test.
 */
@AnalyzeClasses(packages = "dev.warden", importOptions = ImportOption.DoNotIncludeTests.class)
class AccessRulesTest {
    @ArchTest
    static final ArchRule onlyTheAccessPolicyTellsCallersApart = noClasses()
            .that()
            .resideOutsideOfPackages("dev.warden.api.access..", "dev.warden.api.auth..")
            .should()
            .dependOnClassesThat()
            .belongToAnyOf(Principal.Admin.class, Principal.AgentCaller.class)
            .because("access rules live in dev.warden.api.access.AccessPolicy");
}
