package dev.warden.authorizer.engine;

import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.DelegationId;

/**
 * Where a grant comes from: an agent's own permission list, or a delegation. Together with the
 * {@link dev.warden.authorizer.domain.Permission} it names one grant, and so one hourly counter when the
 * grant is constrained.
 */
public sealed interface GrantOrigin permits GrantOrigin.Direct, GrantOrigin.Delegated {

    /** The agent that holds the grant: the agent itself, or the target of the delegation. */
    AgentId holder();

    /** A stable text form, e.g. {@code agent:agt_1} or {@code delegation:dlg_1}; never contains {@code '|'}. */
    String key();

    /** A permission listed on the agent itself. */
    record Direct(AgentId holder) implements GrantOrigin {
        @Override
        public String key() {
            return "agent:" + holder.value();
        }
    }

    /** A permission received through {@code delegation}, held by the delegation's target agent. */
    record Delegated(DelegationId delegation, AgentId holder) implements GrantOrigin {
        @Override
        public String key() {
            return "delegation:" + delegation.value();
        }
    }
}
