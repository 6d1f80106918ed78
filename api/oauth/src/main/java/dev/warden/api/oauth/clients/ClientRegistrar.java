package dev.warden.api.oauth.clients;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.auth.TokenKind;
import dev.warden.api.auth.Tokens;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.UUID;

/**
 * Registers clients (RFC 7591): a public client (method {@code none}) gets an id; a confidential one also a
 * secret, shown once in the answer and stored as its SHA-256.
 */
public final class ClientRegistrar {
    private final ClientRepository repository;
    private final Duration secretTtl;
    private final InstantSource clock;

    /**
     * @param secretTtl how long a secret is valid; zero for never ({@code client_secret_expires_at} 0)
     */
    public ClientRegistrar(ClientRepository repository, Duration secretTtl, InstantSource clock) {
        this.repository = repository;
        this.secretTtl = secretTtl;
        this.clock = clock;
    }

    /** A registration's answer: the client and, for a confidential client, its secret. */
    public record Registered(OAuthClient client, Optional<String> secret) {}

    /** Registers a client with {@code metadata}, through {@code via} ({@code mcp} or {@code oauth}). */
    public Registered register(ClientMetadata metadata, String via) {
        Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
        String clientId = UUID.randomUUID().toString();
        Optional<String> secret = metadata.authMethod().equals(OAuthClient.NONE)
                ? Optional.empty()
                : Optional.of(Tokens.mint(TokenKind.CLIENT_SECRET));
        Optional<Instant> secretExpiresAt =
                secret.isPresent() && !secretTtl.isZero() ? Optional.of(now.plus(secretTtl)) : Optional.empty();
        ObjectNode stored = metadata.echo().deepCopy();
        OAuthClient client = new OAuthClient(
                clientId,
                secret.map(Tokens::hash),
                secretExpiresAt,
                metadata.clientName(),
                metadata.redirectUris(),
                metadata.authMethod(),
                metadata.grantTypes(),
                metadata.scope(),
                stored,
                via,
                now);
        repository.insert(client);
        return new Registered(client, secret);
    }
}
