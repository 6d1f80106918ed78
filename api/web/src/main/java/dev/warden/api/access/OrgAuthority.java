package dev.warden.api.access;

import java.util.Set;

/**
 * What a caller may do in one organization, as {@link AccessPolicy#requireInOrganization} established it for a
 * request: the organization, the caller, the role it acts with ({@code administrator} for the deployment's
 * bootstrap administrator) and that role's permissions.
 */
public record OrgAuthority(String organizationId, Principal actor, String role, Set<String> permissions) {
    public OrgAuthority {
        permissions = Set.copyOf(permissions);
    }

    /** True when this authority includes {@code permission} ({@link OrgRoles#implies}). */
    public boolean holds(String permission) {
        return OrgRoles.implies(permissions, permission);
    }

    /** True for an owner of the organization or the bootstrap administrator. */
    public boolean isOwner() {
        return OrgRoles.OWNER.equals(role) || actor instanceof Principal.Admin;
    }
}
