package dev.warden.api.http;

import dev.warden.api.access.Access;
import dev.warden.api.access.RouteTable;
import io.helidon.common.parameters.Parameters;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.HttpRules;

/**
 * The rules a service mounts its routes with: Helidon's, plus the {@link Access} each route requires, declared
 * beside the route and recorded in the {@link RouteTable} the authentication filter reads. There is no way to
 * mount a route here without saying who may call it, and every path parameter passes the
 * {@link InputContract}'s text rule before the route runs.
 */
public final class DeclaredRules {
    private final HttpRules rules;
    private final String mount;
    private final RouteTable table;

    public DeclaredRules(HttpRules rules, String mount, RouteTable table) {
        this.rules = rules;
        this.mount = mount.endsWith("/") ? mount.substring(0, mount.length() - 1) : mount;
        this.table = table;
    }

    public DeclaredRules get(String path, Access access, Handler handler) {
        record("GET", path, access);
        rules.get(path, checked(handler));
        return this;
    }

    public DeclaredRules post(String path, Access access, Handler handler) {
        record("POST", path, access);
        rules.post(path, checked(handler));
        return this;
    }

    public DeclaredRules put(String path, Access access, Handler handler) {
        record("PUT", path, access);
        rules.put(path, checked(handler));
        return this;
    }

    public DeclaredRules patch(String path, Access access, Handler handler) {
        record("PATCH", path, access);
        rules.patch(path, checked(handler));
        return this;
    }

    public DeclaredRules delete(String path, Access access, Handler handler) {
        record("DELETE", path, access);
        rules.delete(path, checked(handler));
        return this;
    }

    /** A route for every method (the handler answers the ones it serves and hands on the rest). */
    public DeclaredRules any(String path, Access access, Handler handler) {
        record("*", path, access);
        rules.any(path, checked(handler));
        return this;
    }

    /**
     * {@code handler} behind the input contract's text rule for every path parameter: a {@code %00} or a lone
     * surrogate in any segment is a 400 naming the parameter before the route sees it, whether or not the route
     * reads it through {@link Params}.
     */
    private static Handler checked(Handler handler) {
        return (req, res) -> {
            Parameters path = req.path().pathParameters();
            for (String name : path.names()) {
                InputContract.text(name, path.get(name));
            }
            handler.handle(req, res);
        };
    }

    private void record(String method, String path, Access access) {
        String full = path.equals("/") ? (mount.isEmpty() ? "/" : mount) : mount + path;
        table.add(method, full, access);
    }
}
