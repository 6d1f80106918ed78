package dev.warden.api.access;

import static org.assertj.core.api.Assertions.assertThat;

import io.helidon.http.Method;
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

    @Test
    void routesMapToTheirArea() {
        assertThat(Scopes.required(Method.GET, "/agents")).contains("agents:read");
        assertThat(Scopes.required(Method.GET, "/agents/agt_1/")).contains("agents:read");
        assertThat(Scopes.required(Method.POST, "/agents/agt_1/rotate")).contains("agents:write");
        assertThat(Scopes.required(Method.POST, "/agents/agt_1/costs")).contains("costs:write");
        assertThat(Scopes.required(Method.POST, "/authorize")).contains("authorize:write");
        assertThat(Scopes.required(Method.GET, "/audit/export")).contains("audit:read");
        assertThat(Scopes.required(Method.DELETE, "/webhooks/whk_1")).contains("webhooks:write");
        assertThat(Scopes.required(Method.GET, "/events/stream")).contains("events:read");
        assertThat(Scopes.required(Method.GET, "/auth/tokens/current")).isEmpty();
        assertThat(Scopes.required(Method.DELETE, "/auth/tokens/current")).isEmpty();
        assertThat(Scopes.required(Method.POST, "/auth/change-username")).contains("*");
        assertThat(Scopes.required(Method.GET, "/")).contains("*");
        assertThat(Scopes.required(Method.GET, "/agentsx")).contains("*");
    }
}
