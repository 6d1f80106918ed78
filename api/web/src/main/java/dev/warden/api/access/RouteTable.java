package dev.warden.api.access;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Every mounted route with its declared {@link Access}: filled while the routing is built, read by the
 * authentication filter on every request and by the route tests. A request that matches no route needs an
 * authenticated caller with every scope ({@code *}): fail closed. Thread-safe.
 */
public final class RouteTable {
    /**
     * One route.
     *
     * @param method  an HTTP method, or {@code *} for any
     * @param pattern the full path, {@code {name}} standing for one segment and a last {@code *} for one or more
     */
    public record Route(String method, String pattern, Access access) {
        /** Whether this route serves {@code requestMethod} on a path of segments {@code got}. */
        private boolean matches(String requestMethod, String[] want, String[] got) {
            if (!method.equals("*") && !method.equalsIgnoreCase(requestMethod)) {
                return false;
            }
            boolean rest = want.length > 0 && want[want.length - 1].equals("*");
            if (rest ? got.length < want.length : want.length != got.length) {
                return false;
            }
            for (int i = 0; i < (rest ? want.length - 1 : want.length); i++) {
                boolean parameter = want[i].startsWith("{") && want[i].endsWith("}");
                if (parameter ? got[i].isEmpty() : !want[i].equals(got[i])) {
                    return false;
                }
            }
            return true;
        }
    }

    /** What an unknown route requires: an authenticated caller with every scope. */
    public static final Access UNKNOWN_ROUTE = Access.scope(Scopes.ALL);

    /** A route with its pattern's segments, split once when mounted rather than on every request. */
    private record Compiled(Route route, String[] segments) {}

    private final List<Compiled> routes = new CopyOnWriteArrayList<>();

    /** Records a route. */
    public void add(String method, String pattern, Access access) {
        routes.add(new Compiled(new Route(method.toUpperCase(Locale.ROOT), pattern, access), segments(pattern)));
    }

    /**
     * Every route, in the order mounted, but the {@code HEAD} of each {@code GET} route (mounted beside it by
     * {@code DeclaredRules}: the same access, so not a route of its own to document or to test apart).
     */
    public List<Route> routes() {
        return routes.stream()
                .map(Compiled::route)
                .filter(r -> !r.method().equals("HEAD"))
                .toList();
    }

    /** The first route serving {@code method} on {@code path} (its pattern names the route in metrics and logs). */
    public Optional<Route> match(String method, String path) {
        String[] got = segments(path);
        for (Compiled compiled : routes) {
            if (compiled.route().matches(method, compiled.segments(), got)) {
                return Optional.of(compiled.route());
            }
        }
        return Optional.empty();
    }

    /**
     * The methods some route serves on {@code path} (routes for any method left out), in a stable order: for the
     * {@code Allow} header of a 405 or an {@code OPTIONS} answer. Empty when no route has the path.
     */
    public java.util.SortedSet<String> methodsFor(String path) {
        String[] got = segments(path);
        java.util.SortedSet<String> methods = new java.util.TreeSet<>();
        for (Compiled compiled : routes) {
            Route route = compiled.route();
            if (!route.method().equals("*") && route.matches(route.method(), compiled.segments(), got)) {
                methods.add(route.method());
            }
        }
        return methods;
    }

    /** The segments of a path or pattern, a trailing slash ignored. */
    private static String[] segments(String path) {
        String trimmed = path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        return trimmed.split("/", -1);
    }
}
