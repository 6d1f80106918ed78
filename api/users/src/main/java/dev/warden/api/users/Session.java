package dev.warden.api.users;

import dev.warden.authorizer.domain.UserId;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A signed-in session. Its token ({@code wdn_ses_...}) is shown once and only its SHA-256 is stored.
 *
 * @param refreshedAt       the last sliding refresh (sign-in counts as one)
 * @param expiresAt         when it ends unless refreshed; never after {@code absoluteExpiresAt}
 * @param absoluteExpiresAt the hard end: sign-in time plus the maximum lifetime
 */
public record Session(
        String id,
        UserId userId,
        Instant createdAt,
        Instant refreshedAt,
        Instant expiresAt,
        Instant absoluteExpiresAt,
        Optional<Instant> revokedAt,
        List<String> amr) {

    /** How a session signed in with a password alone is recorded (RFC 8176). */
    public static final List<String> PASSWORD = List.of("pwd");

    public Session {
        amr = List.copyOf(amr);
    }

    /** A session signed in with a password alone. */
    public Session(
            String id,
            UserId userId,
            Instant createdAt,
            Instant refreshedAt,
            Instant expiresAt,
            Instant absoluteExpiresAt,
            Optional<Instant> revokedAt) {
        this(id, userId, createdAt, refreshedAt, expiresAt, absoluteExpiresAt, revokedAt, PASSWORD);
    }

    /** A new session starting at {@code now}. */
    static Session start(String id, UserId userId, Instant now, UsersConfig.Sessions config) {
        return start(id, userId, now, config, PASSWORD);
    }

    /** A new session starting at {@code now}, signed in by the methods {@code amr} (RFC 8176 values). */
    static Session start(String id, UserId userId, Instant now, UsersConfig.Sessions config, List<String> amr) {
        Instant absolute = now.plus(config.maxLifetime());
        return new Session(
                id, userId, now, now, min(now.plus(config.ttl()), absolute), absolute, Optional.empty(), amr);
    }

    /** True when the session may be used at {@code now}. */
    public boolean activeAt(Instant now) {
        return revokedAt.isEmpty() && now.isBefore(expiresAt) && now.isBefore(absoluteExpiresAt);
    }

    /** The session refreshed at {@code now}, if {@code refreshAfter} has passed since the last refresh. */
    Optional<Session> refreshedAt(Instant now, UsersConfig.Sessions config) {
        if (Duration.between(refreshedAt, now).compareTo(config.refreshAfter()) < 0) {
            return Optional.empty();
        }
        Instant next = min(now.plus(config.ttl()), absoluteExpiresAt);
        if (!next.isAfter(expiresAt)) {
            return Optional.empty();
        }
        return Optional.of(new Session(id, userId, createdAt, now, next, absoluteExpiresAt, revokedAt, amr));
    }

    private static Instant min(Instant a, Instant b) {
        return a.isBefore(b) ? a : b;
    }
}
