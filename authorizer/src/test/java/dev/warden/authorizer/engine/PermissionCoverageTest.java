package dev.warden.authorizer.engine;

import static dev.warden.authorizer.engine.TestGrants.limited;
import static dev.warden.authorizer.engine.TestGrants.permission;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PermissionCoverageTest {

    @Test
    void narrowerPatternWithFewerActionsIsCovered() {
        assertThat(PermissionCoverage.covers(
                        permission("mcp:github:*", "read", "write"), permission("mcp:github:issues:*", "read")))
                .isTrue();
    }

    @Test
    void widerPatternIsNotCoveredEvenWithTheSameActions() {
        assertThat(PermissionCoverage.covers(
                        permission("mcp:github:issues:*", "read"), permission("mcp:github:*", "read")))
                .isFalse();
    }

    @Test
    void extraActionIsNotCoveredEvenWithTheSamePattern() {
        assertThat(PermissionCoverage.covers(
                        permission("mcp:github:*", "read"), permission("mcp:github:*", "read", "export")))
                .isFalse();
    }

    @Test
    void wildcardActionNeedsAWildcardActionInTheSource() {
        assertThat(PermissionCoverage.covers(permission("*", "read", "write"), permission("db:x", "*")))
                .isFalse();
        assertThat(PermissionCoverage.covers(permission("*", "*"), permission("db:x", "*")))
                .isTrue();
    }

    @Test
    void constraintsDoNotAffectCoverageBecauseTheChainCarriesThem() {
        assertThat(PermissionCoverage.covers(
                        limited(5, "mcp:github:*", "read"), permission("mcp:github:issues", "read")))
                .isTrue();
    }
}
