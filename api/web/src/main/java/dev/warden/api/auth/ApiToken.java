package dev.warden.api.auth;

import dev.warden.api.access.Scopes;
import dev.warden.authorizer.domain.UserId;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A user's API token record; the secret itself is never kept.
 *
 * @param scopes    what the token is for, as its creator named it ({@code *}: everything its user may do)
 * @param expiresAt when it stops working, if ever
 */
public record ApiToken(
        String id,
        String name,
        UserId userId,
        List<String> scopes,
        Instant createdAt,
        Optional<Instant> expiresAt,
        Optional<Instant> revokedAt) {
    /** Every scope. */
    public static final List<String> ALL_SCOPES = List.of(Scopes.ALL);

    public ApiToken {
        scopes = List.copyOf(scopes);
    }

    /** A token with every scope and no expiry. */
    public ApiToken(String id, String name, UserId userId, Instant createdAt, Optional<Instant> revokedAt) {
        this(id, name, userId, ALL_SCOPES, createdAt, Optional.empty(), revokedAt);
    }

    /** True when the token may be used at {@code now}: not revoked and not expired. */
    public boolean activeAt(Instant now) {
        return revokedAt.isEmpty() && expiresAt.filter(e -> !now.isBefore(e)).isEmpty();
    }
}
