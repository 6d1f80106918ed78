package dev.warden.api.access;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The roles of an organization as rules of the access policy (SPEC Authentication 7): the permission catalogue,
 * the three built-in roles and what a held permission implies. Custom roles are sets of catalogue permissions
 * stored per organization; they are checked by the same {@link #implies} rule. Documented in
 * docs/organizations.md.
 */
public final class OrgRoles {
    /** Every member is one: may read the member list and the roles. */
    public static final String MEMBER = "member";
    /** Administers the organization's agents, delegations, members and custom roles. */
    public static final String ADMIN = "admin";
    /** As {@link #ADMIN}, and may also grant and take away the owner role; an organization keeps at least one. */
    public static final String OWNER = "owner";

    /**
     * The permission catalogue, each with what it allows. A role is a set of these; {@code <area>:admin} implies
     * {@code <area>:read}.
     */
    public static final Map<String, String> CATALOGUE = catalogue();

    private static final Map<String, Set<String>> BUILT_IN = Map.of(
            OWNER, CATALOGUE.keySet(),
            ADMIN, CATALOGUE.keySet(),
            MEMBER, Set.of("members:read"));

    private OrgRoles() {}

    /** A role by name with its permissions, built-in or custom, as the access policy weighs it. */
    public record Named(String name, Set<String> permissions) {
        public Named {
            permissions = Set.copyOf(permissions);
        }
    }

    private static Map<String, String> catalogue() {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("agents:read", "list and read the organization's agents");
        c.put("agents:admin", "revoke, suspend and resume the organization's agents");
        c.put("delegations:read", "list and read the delegations of the organization's agents");
        c.put("delegations:admin", "revoke those delegations");
        c.put("members:read", "list the members and the roles");
        c.put("members:admin", "add and remove members and change their roles (the owner role: owners only)");
        c.put("roles:admin", "create and delete custom roles");
        c.put("approvals:admin", "approve and deny the approval requests of the organization's agents");
        return Collections.unmodifiableMap(c);
    }

    /** The built-in role names, in the order they are documented. */
    public static List<String> builtIn() {
        return List.of(OWNER, ADMIN, MEMBER);
    }

    /** The permissions of a built-in role, or empty when {@code role} is not one. */
    public static Optional<Set<String>> builtInPermissions(String role) {
        return Optional.ofNullable(BUILT_IN.get(role));
    }

    /** True for a name of the catalogue. */
    public static boolean isPermission(String name) {
        return CATALOGUE.containsKey(name);
    }

    /** True when permissions {@code held} include {@code required}, directly or as its area's {@code :admin}. */
    public static boolean implies(Set<String> held, String required) {
        if (held.contains(required)) {
            return true;
        }
        int colon = required.indexOf(':');
        return colon > 0 && required.endsWith(":read") && held.contains(required.substring(0, colon) + ":admin");
    }
}
