package dev.warden.api.users;

import dev.warden.authorizer.domain.UserId;
import java.time.Instant;
import java.util.Optional;

/**
 * A user who signed up with a username. Never carries the password hash.
 *
 * @param username the display form of the username
 */
public record User(
        UserId id,
        String username,
        Optional<String> email,
        Optional<String> displayName,
        Instant createdAt,
        Instant updatedAt) {}
