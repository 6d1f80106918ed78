package dev.warden.api.users;

import java.time.Instant;
import java.util.Optional;

/** A user with what sign-in needs: the password hash and the lockout state. */
public record Account(User user, String passwordHash, int failedAttempts, Optional<Instant> lockedUntil) {

    /** True while sign-in is refused regardless of the password. */
    public boolean lockedAt(Instant now) {
        return lockedUntil.filter(now::isBefore).isPresent();
    }
}
