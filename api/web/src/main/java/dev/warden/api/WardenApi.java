package dev.warden.api;

import dev.warden.api.access.RouteTable;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.NotFoundException;
import dev.warden.api.errors.UnavailableException;
import dev.warden.api.errors.WardenException;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.ErrorMapper;
import dev.warden.api.http.Problems;
import dev.warden.api.observe.HealthRoutes;
import dev.warden.api.observe.MetricsRoutes;
import dev.warden.runtime.db.DatabaseException;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import java.sql.SQLTransientException;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;

/**
 * The HTTP surface of Warden as one pure wiring function, shared by the launcher and the tests. Every role
 * serves health and metrics; the services of the API role are given as {@link Mount}s (none on a
 * pipeline-only process), registered in order, so several services may share a prefix. Every route declares
 * its access as it is mounted; {@link #routes()} collects them for the authentication filter (a request that
 * matches no route needs a caller with every scope: fail closed).
 */
public record WardenApi(
        AuthFilter auth, HealthRoutes health, MetricsRoutes metrics, List<Mount> mounts, RouteTable routes) {

    public WardenApi {
        mounts = List.copyOf(mounts);
    }

    /**
     * A service mounted under a path prefix, and how its surface shows errors (problem+json unless it says
     * otherwise: the OAuth endpoints answer RFC 6749 bodies, browser pages HTML).
     */
    public record Mount(String path, DeclaredService service, ErrorMapper errors) {
        /** A REST mount: errors as problem+json. */
        public Mount(String path, DeclaredService service) {
            this(path, service, Problems.REST);
        }
    }

    /**
     * The home of every administrative route: organizations, dead letters, the security doctor. The only path
     * with a version segment (docs/api.md).
     */
    public static final String ADMIN_PATH = "/admin/v1";

    /** Where the SSE stream is mounted by default. */
    public static final String EVENT_STREAM_PATH = "/events/stream";

    /** Registers every route, the authentication filter and the error handlers on {@code routing}. */
    public void routing(HttpRouting.Builder routing) {
        routing.addFilter(auth);
        register(routing, "/observe", health);
        register(routing, "/observe", metrics);
        mounts.forEach(m -> register(routing, m.path(), m.service()));
        routing.any((req, res) -> mapperFor(req)
                .send(
                        req,
                        res,
                        new NotFoundException(
                                ErrorCode.NOT_FOUND,
                                "no route for " + req.prologue().method().text() + " "
                                        + req.prologue().uriPath().path())));
        routing.error(WardenException.class, (req, res, e) -> mapperFor(req).send(req, res, e));
        routing.error(DatabaseException.class, (req, res, e) -> {
            if (e.getCause() instanceof SQLTransientException
                    || e.sqlState() != null && e.sqlState().startsWith("08")) {
                mapperFor(req)
                        .send(req, res, new UnavailableException("the database is unavailable", Duration.ofSeconds(2)));
            } else {
                Problems.handleUnexpected(req, res, e);
            }
        });
        routing.error(Exception.class, Problems::handleUnexpected);
    }

    /** Mounts {@code service} and records the access of each of its routes in {@link #routes()}. */
    private void register(HttpRouting.Builder routing, String path, DeclaredService service) {
        HttpService declared = rules -> service.routing(new DeclaredRules(rules, path, routes));
        routing.register(path, declared);
    }

    /** The error surface of the mount a request falls under (the longest matching prefix), else problem+json. */
    private ErrorMapper mapperFor(ServerRequest req) {
        String path = req.prologue().uriPath().path();
        return mounts.stream()
                .filter(m ->
                        path.equals(m.path()) || path.startsWith(m.path().endsWith("/") ? m.path() : m.path() + "/"))
                .max(Comparator.comparingInt(m -> m.path().length()))
                .map(Mount::errors)
                .orElse(Problems.REST);
    }
}
