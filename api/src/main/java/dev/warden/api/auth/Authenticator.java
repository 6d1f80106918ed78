package dev.warden.api.auth;

import dev.warden.api.access.Principal;
import dev.warden.authorizer.domain.Agent;
import java.time.InstantSource;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Maps a bearer token to the {@link Principal} it stands for, or to nothing. Looks tokens up by their
 * SHA-256 (so the lookup reveals nothing through timing) and compares the admin token in constant time.
 * Agent tokens work only while the agent is active (not suspended, revoked or expired).
 *
 * <p>Agent tokens are cached by hash (the authorize hot path); {@link #invalidateAgents()} drops the cache and
 * is called on every agent change, local or seen on {@code warden.events}. Unknown tokens are never cached.
 */
public final class Authenticator {
    private final byte[] adminTokenHash;
    private final AgentTokens agents;
    private final ApiTokenRepository apiTokens;
    private final SessionResolver sessions;
    private final InstantSource clock;
    private final Map<String, Agent> agentTokens = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicLong generation = new java.util.concurrent.atomic.AtomicLong();

    public Authenticator(byte[] adminTokenHash, AgentTokens agents, ApiTokenRepository apiTokens,
                         InstantSource clock) {
        this(adminTokenHash, agents, apiTokens, SessionResolver.NONE, clock);
    }

    /** An authenticator that also accepts session tokens, resolved by {@code sessions}. */
    public Authenticator(byte[] adminTokenHash, AgentTokens agents, ApiTokenRepository apiTokens,
                         SessionResolver sessions, InstantSource clock) {
        this.adminTokenHash = adminTokenHash.clone();
        this.agents = agents;
        this.apiTokens = apiTokens;
        this.sessions = sessions;
        this.clock = clock;
    }

    /**
     * The principal of {@code token}, empty when the token is unknown, revoked or expired (API tokens and
     * sessions) or its agent inactive.
     */
    public Optional<Principal> authenticate(String token) {
        if (token.isEmpty() || token.length() > 512) {
            return Optional.empty();
        }
        byte[] hash = Tokens.hash(token);
        if (Tokens.sameHash(hash, adminTokenHash)) {
            return Optional.of(new Principal.Admin());
        }
        return switch (Tokens.kindOf(token).orElse(TokenKind.ADMIN)) {
            case AGENT -> agentByToken(hash)
                    .filter(agent -> agent.isActive(clock.instant()))
                    .map(agent -> new Principal.AgentCaller(agent.id(), agent.ownerId()));
            case API -> apiTokens.findActiveByHash(hash).filter(t -> t.activeAt(clock.instant()))
                    .map(t -> new Principal.User(t.userId(), t.id(), Principal.Credential.API_TOKEN, t.scopes()));
            case SESSION -> sessions.resolve(hash).map(Principal.class::cast);
            case ADMIN -> Optional.empty();
        };
    }

    /** Drops every cached agent token. */
    public void invalidateAgents() {
        generation.incrementAndGet();
        agentTokens.clear();
    }

    private Optional<Agent> agentByToken(byte[] hash) {
        String key = HexFormat.of().formatHex(hash);
        Agent cached = agentTokens.get(key);
        if (cached != null) {
            return Optional.of(cached);
        }
        long gen = generation.get();
        Optional<Agent> found = agents.findByTokenHash(hash);
        if (found.isPresent() && generation.get() == gen) {
            agentTokens.put(key, found.get());
        }
        return found;
    }
}
