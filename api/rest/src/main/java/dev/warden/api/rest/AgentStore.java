package dev.warden.api.rest;

import dev.warden.api.agents.JdbcAgentRepository;
import dev.warden.api.auth.AgentTokenResolver;
import dev.warden.api.auth.JdbcApiTokenRepository;
import dev.warden.api.authorize.PolicyResolver;
import dev.warden.api.delegations.JdbcDelegationRepository;
import dev.warden.api.oauth.agents.AgentDirectory;
import dev.warden.runtime.db.Database;
import java.time.InstantSource;

/**
 * Agents, their tokens, API tokens and delegations as one process reads them, with the caches that
 * {@code POST /authorize} and authentication share. Built before the components that read it: the credential
 * chain (agent and API tokens), the authorization server ({@link #directory()}) and the REST surface.
 */
public record AgentStore(
        JdbcAgentRepository agents,
        JdbcApiTokenRepository apiTokens,
        JdbcDelegationRepository delegations,
        AgentTokenResolver agentTokens,
        PolicyResolver policies) {

    /** The store on {@code db}. */
    public static AgentStore on(Database db, InstantSource clock) {
        JdbcAgentRepository agents = new JdbcAgentRepository(db);
        JdbcDelegationRepository delegations = new JdbcDelegationRepository(db);
        return new AgentStore(
                agents,
                new JdbcApiTokenRepository(db),
                delegations,
                new AgentTokenResolver(agents, clock),
                new PolicyResolver(agents, delegations, clock));
    }

    /** The authorization server's view of agents, through the same caches as {@code POST /authorize}. */
    public AgentDirectory directory() {
        return new RestAgentDirectory(agents, agentTokens.cached(), delegations, policies);
    }

    /** Forgets every cached policy and agent token: access changed somewhere. */
    public void invalidate() {
        policies.invalidateAll();
        agentTokens.invalidate();
    }
}
