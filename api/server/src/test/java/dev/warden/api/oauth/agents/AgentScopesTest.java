package dev.warden.api.oauth.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.Permission;
import dev.warden.authorizer.engine.CompiledPolicy;
import java.util.List;
import org.junit.jupiter.api.Test;

class AgentScopesTest {
    static final CompiledPolicy POLICY = CompiledPolicy.ofDirect(
            AgentId.of("agt_scopes"),
            List.of(Permission.of("agents", "read"), Permission.of("files:reports:*", "export")));

    @Test
    void aScopeIsHeldWhenThePolicyAllowsItsActionOnItsResource() {
        assertThat(AgentScopes.grantsFor(POLICY, "agents:read")).hasSize(1);
        assertThat(AgentScopes.grantsFor(POLICY, "files:reports:q3:export")).hasSize(1);
    }

    @Test
    void otherActionsResourcesAndShapesAreNotHeld() {
        assertThat(AgentScopes.grantsFor(POLICY, "agents:write")).isEmpty();
        assertThat(AgentScopes.grantsFor(POLICY, "audit:read")).isEmpty();
        assertThat(AgentScopes.grantsFor(POLICY, "mcp")).isEmpty();
        assertThat(AgentScopes.grantsFor(POLICY, ":read")).isEmpty();
        assertThat(AgentScopes.grantsFor(POLICY, "agents:")).isEmpty();
        assertThat(AgentScopes.grantsFor(POLICY, "files:*:export")).isEmpty();
    }
}
