package dev.warden.api.oauth.agents;

import dev.warden.api.access.Principal;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;

/** Who may bind an agent to an OAuth client (the REST API's rule for changing an agent), and what binding changes. */
public interface ManagedAgents {
    /**
     * The agent {@code id} when {@code caller} may change it (its owner, the administrator).
     *
     * @throws dev.warden.api.errors.WardenException the REST API's answer otherwise (404 for an agent the caller
     *                                               may not see, 403 for one it may see but not change)
     */
    Agent manageable(Principal caller, AgentId id);

    /**
     * Records that {@code caller} bound or unbound the agent's OAuth client: moves the agent's version, which ends
     * its client-credentials tokens on every instance (D185), and emits {@code agent.updated}.
     */
    Agent clientBindingChanged(Principal caller, AgentId id);
}
