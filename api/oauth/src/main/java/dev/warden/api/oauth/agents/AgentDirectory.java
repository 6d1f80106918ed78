package dev.warden.api.oauth.agents;

import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.Delegation;
import dev.warden.authorizer.domain.DelegationId;
import dev.warden.authorizer.engine.ChainWalk;
import java.util.List;
import java.util.Optional;

/**
 * What the authorization server reads about agents and delegations: the whole of what it knows of them, implemented
 * by the process's wiring over the REST API's repositories. Reads see what {@code POST /authorize} sees (agents by
 * token and policies are cached likewise, and dropped on every agent or delegation change).
 */
public interface AgentDirectory {
    /** The agent {@code id}, whatever its status. */
    Optional<Agent> agent(AgentId id);

    /** The agent whose current token has SHA-256 {@code tokenHash}, whatever its status. */
    Optional<Agent> agentByTokenHash(byte[] tokenHash);

    /** The delegation {@code id}, revoked or not. */
    Optional<Delegation> delegation(DelegationId id);

    /** Every delegation from {@code from} to {@code to}, revoked and expired ones included. */
    List<Delegation> delegationsBetween(AgentId from, AgentId to);

    /** The effective policy of agent {@code id} now (empty for an inactive or unknown agent), with the agent. */
    ChainWalk.Result policy(AgentId id);
}
