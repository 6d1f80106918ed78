package dev.warden.api.auth;

import dev.warden.api.agents.AgentRepository;
import java.time.InstantSource;
import java.util.Optional;

/**
 * Maps a bearer token to the {@link Principal} it stands for, or to nothing. Looks tokens up by their
 * SHA-256 (so the lookup reveals nothing through timing) and compares the admin token in constant time.
 * Agent tokens work only while the agent is active (not suspended, revoked or expired).
 */
public final class Authenticator {
    private final byte[] adminTokenHash;
    private final AgentRepository agents;
    private final ApiTokenRepository apiTokens;
    private final InstantSource clock;

    public Authenticator(byte[] adminTokenHash, AgentRepository agents, ApiTokenRepository apiTokens,
                         InstantSource clock) {
        this.adminTokenHash = adminTokenHash.clone();
        this.agents = agents;
        this.apiTokens = apiTokens;
        this.clock = clock;
    }

    /** The principal of {@code token}, empty when the token is unknown, revoked or its agent inactive. */
    public Optional<Principal> authenticate(String token) {
        if (token.isEmpty() || token.length() > 512) {
            return Optional.empty();
        }
        byte[] hash = Tokens.hash(token);
        if (Tokens.sameHash(hash, adminTokenHash)) {
            return Optional.of(new Principal.Admin());
        }
        return switch (Tokens.kindOf(token).orElse(TokenKind.ADMIN)) {
            case AGENT -> agents.findByTokenHash(hash)
                    .filter(agent -> agent.isActive(clock.instant()))
                    .map(agent -> new Principal.AgentCaller(agent.id(), agent.ownerId()));
            case API -> apiTokens.findActiveByHash(hash).map(t -> new Principal.User(t.userId(), t.id()));
            case ADMIN -> Optional.empty();
        };
    }
}
