package dev.warden.api.access;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The scopes an API token may carry. A scope is {@code <area>:read} or {@code <area>:write}; {@code <area>:*}
 * grants both, {@code *} grants everything. {@code write} does not imply {@code read}. The areas:
 * {@code agents}, {@code costs} (recording costs), {@code delegations}, {@code authorize}
 * ({@code POST /authorize}, a write), {@code audit}, {@code dashboard}, {@code events} (the event stream),
 * {@code webhooks}, {@code organizations} (the organization administration under {@code /admin/v1}),
 * {@code approvals} and {@code ssf} (the Shared Signals streams under {@code /ssf}). Each
 * route declares the scope it needs where it is mounted ({@link Access}); a route
 * that matches none needs {@code *} (fail closed). Scopes narrow what the token's user may do; they never
 * widen it.
 */
public final class Scopes {
    /** Every scope: the default of a new token. */
    public static final String ALL = "*";

    /**
     * The scope of Warden's MCP endpoint: using its tools, which read agents, the audit log and the dashboard
     * and check authorizations ({@link #MCP_GRANTS}).
     */
    public static final String MCP = "mcp";

    /** What {@link #MCP} lets a token do besides calling {@code /mcp}. */
    public static final List<String> MCP_GRANTS =
            List.of("agents:read", "audit:read", "dashboard:read", "authorize:write");

    /** The areas of the API, in the order they are documented. */
    public static final List<String> AREAS = List.of(
            "agents",
            "costs",
            "delegations",
            "authorize",
            "audit",
            "dashboard",
            "events",
            "webhooks",
            "organizations",
            "approvals",
            "ssf");

    private Scopes() {}

    /** True for a scope name of the vocabulary: {@code *}, {@code area:read}, {@code area:write}, {@code area:*}. */
    public static boolean isValid(String scope) {
        if (ALL.equals(scope) || MCP.equals(scope)) {
            return true;
        }
        int colon = scope.indexOf(':');
        if (colon < 0) {
            return false;
        }
        String verb = scope.substring(colon + 1);
        return AREAS.contains(scope.substring(0, colon))
                && (verb.equals("read") || verb.equals("write") || verb.equals("*"));
    }

    /** Every concrete scope an OAuth client may ask for: {@link #MCP} and each area's read and write. */
    public static List<String> oauthScopes() {
        List<String> all = new ArrayList<>();
        all.add(MCP);
        AREAS.forEach(a -> {
            all.add(a + ":read");
            all.add(a + ":write");
        });
        return List.copyOf(all);
    }

    /** The scopes a token holding {@code granted} acts with: {@link #MCP} adds {@link #MCP_GRANTS}. */
    public static List<String> effective(Collection<String> granted) {
        if (!granted.contains(MCP)) {
            return List.copyOf(granted);
        }
        LinkedHashSet<String> all = new LinkedHashSet<>(granted);
        all.addAll(MCP_GRANTS);
        return List.copyOf(all);
    }

    /** True when the scopes {@code held} include {@code required} (an exact name, {@code area:*} or {@code *}). */
    public static boolean grants(Collection<String> held, String required) {
        if (held.contains(ALL) || held.contains(required)) {
            return true;
        }
        int colon = required.indexOf(':');
        return colon > 0 && held.contains(required.substring(0, colon) + ":*");
    }
}
