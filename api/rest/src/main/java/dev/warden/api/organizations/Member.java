package dev.warden.api.organizations;

import dev.warden.authorizer.domain.UserId;
import java.time.Instant;

/** A user's membership of an organization, with the user's current username for display. */
public record Member(UserId userId, String username, String role, Instant joinedAt) {}
