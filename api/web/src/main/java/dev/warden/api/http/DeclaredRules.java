package dev.warden.api.http;

import dev.warden.api.access.Access;
import dev.warden.api.access.RouteTable;
import io.helidon.common.parameters.Parameters;
import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.HttpRules;
import java.time.Instant;
import java.util.Optional;

/**
 * The rules a service mounts its routes with: Helidon's, plus the {@link Access} each route requires, declared
 * beside the route and recorded in the {@link RouteTable} the authentication filter reads. There is no way to
 * mount a route here without saying who may call it, and every path parameter passes the
 * {@link InputContract}'s text rule before the route runs.
 */
public final class DeclaredRules {
    private static final HeaderName DEPRECATION = HeaderNames.create("Deprecation");
    private static final HeaderName LINK = HeaderNames.create("Link");
    /** RFC 9745: the moment the moved routes were deprecated, a structured-field date (2026-11-27T00:00:00Z). */
    private static final String DEPRECATED_SINCE =
            "@" + Instant.parse("2026-11-27T00:00:00Z").getEpochSecond();

    private final HttpRules rules;
    private final String mount;
    private final RouteTable table;
    /** Where these routes moved, when they are kept only for old clients. */
    private final Optional<String> successor;

    public DeclaredRules(HttpRules rules, String mount, RouteTable table) {
        this(rules, mount, table, Optional.empty());
    }

    private DeclaredRules(HttpRules rules, String mount, RouteTable table, Optional<String> successor) {
        this.rules = rules;
        this.mount = mount.endsWith("/") ? mount.substring(0, mount.length() - 1) : mount;
        this.table = table;
        this.successor = successor;
    }

    /**
     * These rules for routes that moved under {@code successorMount} and stay here for old clients: each answer
     * says so with {@code Deprecation} (RFC 9745) and a {@code Link} to the same route at its new path
     * ({@code rel="successor-version"}, RFC 8288).
     */
    public DeclaredRules movedTo(String successorMount) {
        return new DeclaredRules(rules, mount, table, Optional.of(successorMount));
    }

    /** A GET route, and the HEAD of it: the same handler and access, the body measured and dropped. */
    public DeclaredRules get(String path, Access access, Handler handler) {
        record("GET", path, access);
        rules.get(path, checked(path, handler));
        record("HEAD", path, access);
        Handler checked = checked(path, handler);
        rules.head(path, (req, res) -> checked.handle(req, new HeadResponse(res)));
        return this;
    }

    public DeclaredRules post(String path, Access access, Handler handler) {
        record("POST", path, access);
        rules.post(path, checked(path, handler));
        return this;
    }

    public DeclaredRules put(String path, Access access, Handler handler) {
        record("PUT", path, access);
        rules.put(path, checked(path, handler));
        return this;
    }

    public DeclaredRules patch(String path, Access access, Handler handler) {
        record("PATCH", path, access);
        rules.patch(path, checked(path, handler));
        return this;
    }

    public DeclaredRules delete(String path, Access access, Handler handler) {
        record("DELETE", path, access);
        rules.delete(path, checked(path, handler));
        return this;
    }

    /** A route for every method (the handler answers the ones it serves and hands on the rest). */
    public DeclaredRules any(String path, Access access, Handler handler) {
        record("*", path, access);
        rules.any(path, checked(path, handler));
        return this;
    }

    /**
     * {@code handler} behind the input contract's text rule for every path parameter: a {@code %00} or a lone
     * surrogate in any segment is a 400 naming the parameter before the route sees it, whether or not the route
     * reads it through {@link Params}. A moved route also announces where it went.
     */
    private Handler checked(String route, Handler handler) {
        Optional<String> link =
                successor.map(to -> "<" + (route.equals("/") ? to : to + route) + ">; rel=\"successor-version\"");
        return (req, res) -> {
            Parameters path = req.path().pathParameters();
            for (String name : path.names()) {
                InputContract.text(name, path.get(name));
            }
            if (link.isPresent()) {
                res.header(DEPRECATION, DEPRECATED_SINCE);
                res.header(LINK, link.get());
            }
            handler.handle(req, res);
        };
    }

    private void record(String method, String path, Access access) {
        String full = path.equals("/") ? (mount.isEmpty() ? "/" : mount) : mount + path;
        table.add(method, full, access);
    }
}
