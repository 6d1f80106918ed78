package dev.warden.api.access;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ScopesTest {
    @Test
    void vocabularyIsAreaColonVerbOrStar() {
        assertThat(Scopes.isValid("*")).isTrue();
        assertThat(Scopes.isValid("agents:read")).isTrue();
        assertThat(Scopes.isValid("audit:*")).isTrue();
        assertThat(Scopes.isValid("agents:delete")).isFalse();
        assertThat(Scopes.isValid("auth:read")).isFalse();
        assertThat(Scopes.isValid("agents")).isFalse();
        assertThat(Scopes.isValid(":read")).isFalse();
    }

    @Test
    void grantsByExactNameAreaWildcardOrStar() {
        assertThat(Scopes.grants(List.of("agents:read"), "agents:read")).isTrue();
        assertThat(Scopes.grants(List.of("agents:write"), "agents:read")).isFalse();
        assertThat(Scopes.grants(List.of("agents:*"), "agents:write")).isTrue();
        assertThat(Scopes.grants(List.of("agents:*"), "audit:read")).isFalse();
        assertThat(Scopes.grants(List.of("*"), "*")).isTrue();
        assertThat(Scopes.grants(List.of("agents:*", "audit:*"), "*")).isFalse();
    }
}
