package dev.warden.api.auth;

import dev.warden.api.access.Principal;
import java.util.Optional;

/**
 * One kind of credential in the {@link Authenticator}'s chain: the administrator token, agent tokens, users'
 * API tokens, sessions (and, with OAuth, access tokens). A resolver is asked only about the tokens it claims,
 * and is given the token's SHA-256 so that lookups never see the token itself.
 */
public interface CredentialResolver {
    /** Whether {@code token} is of this resolver's kind (its prefix); every token unless overridden. */
    default boolean claims(String token) {
        return true;
    }

    /** The principal {@code token} stands for, empty when this resolver does not know it or it is no longer valid. */
    Optional<Principal> resolve(String token, byte[] tokenHash);

    /** Claims tokens of {@code kind} and resolves them by hash with {@code lookup}. */
    static CredentialResolver ofKind(TokenKind kind, HashLookup lookup) {
        return new CredentialResolver() {
            @Override
            public boolean claims(String token) {
                return token.startsWith(kind.prefix());
            }

            @Override
            public Optional<Principal> resolve(String token, byte[] tokenHash) {
                return lookup.find(tokenHash).map(Principal.class::cast);
            }
        };
    }

    /** A principal looked up by a token's hash. */
    @FunctionalInterface
    interface HashLookup {
        Optional<? extends Principal> find(byte[] tokenHash);
    }
}
