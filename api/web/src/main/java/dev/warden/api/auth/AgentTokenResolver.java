package dev.warden.api.auth;

import dev.warden.api.access.Principal;
import dev.warden.authorizer.domain.Agent;
import java.time.InstantSource;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Agents' own tokens ({@code wdn_agt_}), valid only while the agent is active (not suspended, revoked or
 * expired). Found agents are cached by token hash for the authorize hot path; {@link #invalidate()} drops the
 * cache and is called on every agent change, local or seen on {@code warden.events}. Unknown tokens are never
 * cached.
 */
public final class AgentTokenResolver implements CredentialResolver {
    private final AgentTokens agents;
    private final InstantSource clock;
    private final Map<String, Agent> byHash = new ConcurrentHashMap<>();
    private final AtomicLong generation = new AtomicLong();

    public AgentTokenResolver(AgentTokens agents, InstantSource clock) {
        this.agents = agents;
        this.clock = clock;
    }

    @Override
    public boolean claims(String token) {
        return token.startsWith(TokenKind.AGENT.prefix());
    }

    @Override
    public Optional<Principal> resolve(String token, byte[] tokenHash) {
        return agentByHash(tokenHash)
                .filter(agent -> agent.isActive(clock.instant()))
                .map(agent -> new Principal.AgentCaller(agent.id(), agent.ownerId()));
    }

    /**
     * The principal of an agent that authenticated with an OAuth access token it obtained by client credentials:
     * the agent, limited to the token's {@code scopes} and {@code audiences}.
     */
    public static Principal oauthAgent(Agent agent, List<String> scopes, List<String> audiences) {
        return new Principal.AgentCaller(agent.id(), agent.ownerId(), scopes, audiences);
    }

    /** Agents by token hash through this resolver's cache (whatever their status). */
    public AgentTokens cached() {
        return this::agentByHash;
    }

    /** Drops every cached agent. */
    public void invalidate() {
        generation.incrementAndGet();
        byHash.clear();
    }

    private Optional<Agent> agentByHash(byte[] hash) {
        String key = HexFormat.of().formatHex(hash);
        Agent cached = byHash.get(key);
        if (cached != null) {
            return Optional.of(cached);
        }
        long gen = generation.get();
        Optional<Agent> found = agents.findByTokenHash(hash);
        if (found.isPresent() && generation.get() == gen) {
            byHash.put(key, found.get());
        }
        return found;
    }
}
