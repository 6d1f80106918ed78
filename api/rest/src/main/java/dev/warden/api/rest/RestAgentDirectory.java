package dev.warden.api.rest;

import dev.warden.api.agents.AgentRepository;
import dev.warden.api.auth.AgentTokens;
import dev.warden.api.authorize.PolicyResolver;
import dev.warden.api.delegations.DelegationRepository;
import dev.warden.api.oauth.agents.AgentDirectory;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.Delegation;
import dev.warden.authorizer.domain.DelegationId;
import dev.warden.authorizer.engine.ChainWalk;
import java.util.List;
import java.util.Optional;

/**
 * The authorization server's view of agents ({@link AgentDirectory}) over the REST API's repositories: agents,
 * agents by token through the same cache {@code POST /authorize} uses, delegations, and policies through the
 * authorize path's resolver.
 */
record RestAgentDirectory(
        AgentRepository agents, AgentTokens tokens, DelegationRepository delegations, PolicyResolver policies)
        implements AgentDirectory {
    @Override
    public Optional<Agent> agent(AgentId id) {
        return agents.find(id);
    }

    @Override
    public Optional<Agent> agentByTokenHash(byte[] tokenHash) {
        return tokens.findByTokenHash(tokenHash);
    }

    @Override
    public Optional<Delegation> delegation(DelegationId id) {
        return delegations.find(id);
    }

    @Override
    public List<Delegation> delegationsBetween(AgentId from, AgentId to) {
        return delegations.between(from, to);
    }

    @Override
    public ChainWalk.Result policy(AgentId id) {
        return policies.resolve(id);
    }
}
