package dev.warden.api.auth;

import dev.warden.api.access.Principal;
import java.util.Optional;

/**
 * Resolves session tokens ({@link TokenKind#SESSION}) for the {@link Authenticator}; implemented by the
 * users component. Given only the token's SHA-256, so the token itself never leaves authentication.
 */
@FunctionalInterface
public interface SessionResolver {
    /** Resolves nothing: sessions are not served. */
    SessionResolver NONE = tokenHash -> Optional.empty();

    /** The user of the live session whose token has this hash; empty when unknown, expired or revoked. */
    Optional<Principal.User> resolve(byte[] tokenHash);
}
