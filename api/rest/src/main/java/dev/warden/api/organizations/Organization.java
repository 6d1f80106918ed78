package dev.warden.api.organizations;

import dev.warden.authorizer.domain.UserId;
import java.time.Instant;

/** An organization: a team whose members share the administration of its agents. Its id is its agents' tenant. */
public record Organization(String id, String name, UserId createdBy, Instant createdAt) {}
