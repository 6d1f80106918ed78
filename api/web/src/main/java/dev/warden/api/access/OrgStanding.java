package dev.warden.api.access;

import java.util.Optional;
import java.util.Set;

/**
 * A user's standing towards one organization, as stored: the organization they act in ({@code active}), and
 * their role in the organization asked about with that role's permissions (empty when not a member).
 */
public record OrgStanding(Optional<String> active, Optional<String> role, Set<String> permissions) {
    public OrgStanding {
        permissions = Set.copyOf(permissions);
    }

    /** No active organization and no membership. */
    public static OrgStanding none() {
        return new OrgStanding(Optional.empty(), Optional.empty(), Set.of());
    }
}
