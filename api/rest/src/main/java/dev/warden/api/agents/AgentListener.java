package dev.warden.api.agents;

import dev.warden.api.access.Principal;
import dev.warden.authorizer.domain.Agent;
import dev.warden.pipeline.contract.EventType;

/** Told about every committed agent change on this instance (cache invalidation, cascading revocation). */
@FunctionalInterface
public interface AgentListener {
    /** {@code agent} as stored after the change {@code change} made by {@code actor}. */
    void changed(Agent agent, EventType change, Principal actor);
}
