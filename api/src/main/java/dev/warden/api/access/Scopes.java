package dev.warden.api.access;

import io.helidon.http.Method;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The scopes an API token may carry, and the one each route needs. A scope is {@code <area>:read} or
 * {@code <area>:write}; {@code <area>:*} grants both, {@code *} grants everything. {@code write} does not
 * imply {@code read}. The areas follow the URL space: {@code agents} (also {@code /agents/:id/costs} reads),
 * {@code costs} (recording costs), {@code delegations}, {@code authorize} ({@code POST /authorize}, a
 * write), {@code audit}, {@code dashboard}, {@code events} (the event stream) and {@code webhooks}.
 *
 * <p>A route outside every area needs {@code *} (fail closed: a route added later is not reachable by a
 * narrowly scoped token until it is given an area here). The caller's own credential endpoints
 * ({@code /auth/session}, {@code /auth/sign-out}, {@code /auth/tokens/current}) need no scope.
 * Scopes narrow what the token's user may do; they never widen it.
 */
public final class Scopes {
    /** Every scope: the default of a new token. */
    public static final String ALL = "*";

    /** The areas of the API, in the order they are documented. */
    public static final List<String> AREAS = List.of("agents", "costs", "delegations", "authorize", "audit",
            "dashboard", "events", "webhooks");

    private static final Set<String> NO_SCOPE_NEEDED = Set.of("/auth/session", "/auth/sign-out",
            "/auth/tokens/current");

    private Scopes() {
    }

    /** True for a scope name of the vocabulary: {@code *}, {@code area:read}, {@code area:write}, {@code area:*}. */
    public static boolean isValid(String scope) {
        if (ALL.equals(scope)) {
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

    /** True when the scopes {@code held} include {@code required} (an exact name, {@code area:*} or {@code *}). */
    public static boolean grants(Collection<String> held, String required) {
        if (held.contains(ALL) || held.contains(required)) {
            return true;
        }
        int colon = required.indexOf(':');
        return colon > 0 && held.contains(required.substring(0, colon) + ":*");
    }

    /**
     * The scope a request needs: empty when it needs none (the caller's own credential), otherwise
     * {@code area:read} for GET/HEAD and {@code area:write} for anything else, or {@code *} outside every area.
     */
    public static Optional<String> required(Method method, String path) {
        if (NO_SCOPE_NEEDED.contains(stripSlash(path))) {
            return Optional.empty();
        }
        String verb = method == Method.GET || method == Method.HEAD ? "read" : "write";
        String[] segments = stripSlash(path).split("/", -1);
        String area = segments.length > 1 ? segments[1] : "";
        if (area.equals("agents") && segments.length == 4 && segments[3].equals("costs") && verb.equals("write")) {
            return Optional.of("costs:write");
        }
        if (area.equals("events") && segments.length > 2 && segments[2].equals("stream")) {
            return Optional.of("events:read");
        }
        return Optional.of(AREAS.contains(area) ? area + ":" + verb : ALL);
    }

    private static String stripSlash(String path) {
        return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }
}
