package dev.warden.api.oauth.agents;

import dev.warden.api.agents.AgentRepository;
import dev.warden.api.authorize.PolicyResolver;
import dev.warden.api.delegations.DelegationRepository;

/** What the authorization server reads about agents: the agents, their delegations and their policies. */
public record AgentDirectory(AgentRepository agents, DelegationRepository delegations, PolicyResolver policies) {
}
