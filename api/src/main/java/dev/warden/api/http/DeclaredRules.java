package dev.warden.api.http;

import dev.warden.api.access.Access;
import dev.warden.api.access.RouteTable;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.HttpRules;

/**
 * The rules a service mounts its routes with: Helidon's, plus the {@link Access} each route requires, declared
 * beside the route and recorded in the {@link RouteTable} the authentication filter reads. There is no way to
 * mount a route here without saying who may call it.
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
        rules.get(path, handler);
        return this;
    }

    public DeclaredRules post(String path, Access access, Handler handler) {
        record("POST", path, access);
        rules.post(path, handler);
        return this;
    }

    public DeclaredRules put(String path, Access access, Handler handler) {
        record("PUT", path, access);
        rules.put(path, handler);
        return this;
    }

    public DeclaredRules patch(String path, Access access, Handler handler) {
        record("PATCH", path, access);
        rules.patch(path, handler);
        return this;
    }

    public DeclaredRules delete(String path, Access access, Handler handler) {
        record("DELETE", path, access);
        rules.delete(path, handler);
        return this;
    }

    /** A route for every method (the handler answers the ones it serves and hands on the rest). */
    public DeclaredRules any(String path, Access access, Handler handler) {
        record("*", path, access);
        rules.any(path, handler);
        return this;
    }

    private void record(String method, String path, Access access) {
        String full = path.equals("/") ? (mount.isEmpty() ? "/" : mount) : mount + path;
        table.add(method, full, access);
    }
}
