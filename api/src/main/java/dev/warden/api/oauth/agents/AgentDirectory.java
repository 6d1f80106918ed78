package dev.warden.api.oauth.agents;

import dev.warden.api.agents.AgentRepository;
import dev.warden.api.auth.AgentTokens;
import dev.warden.api.authorize.PolicyResolver;
import dev.warden.api.delegations.DelegationRepository;

/**
 * What the authorization server reads about agents: the agents, agents by token (cached like the authorize path's,
 * dropped on every agent change), their delegations and their policies (cached likewise).
 */
public record AgentDirectory(AgentRepository agents, AgentTokens tokens, DelegationRepository delegations,
                             PolicyResolver policies) {
}
