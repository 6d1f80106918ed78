package dev.warden.api.auth;

import dev.warden.authorizer.domain.UserId;
import java.time.Instant;
import java.util.Optional;

/** A user's API token record; the secret itself is never kept. */
public record ApiToken(String id, String name, UserId userId, Instant createdAt, Optional<Instant> revokedAt) {
}
