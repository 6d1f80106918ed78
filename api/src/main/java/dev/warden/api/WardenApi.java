package dev.warden.api;

import dev.warden.api.auth.AuthFilter;
import dev.warden.api.observe.MetricsRoutes;
import dev.warden.api.db.DatabaseException;
import dev.warden.api.http.ApiException;
import dev.warden.api.http.ErrorCode;
import dev.warden.api.http.Problems;
import dev.warden.api.observe.HealthRoutes;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.HttpService;
import java.sql.SQLTransientException;
import java.util.List;
import java.util.Map;

/**
 * The HTTP surface of Warden as one pure wiring function, shared by the launcher and the tests. Every role
 * serves health and metrics; the services of the API role are given as {@link Mount}s (none on a
 * pipeline-only process), registered in order, so several services may share a prefix.
 */
public record WardenApi(AuthFilter auth, HealthRoutes health, MetricsRoutes metrics, List<Mount> mounts) {

    public WardenApi {
        mounts = List.copyOf(mounts);
    }

    /** A service mounted under a path prefix. */
    public record Mount(String path, HttpService service) {
    }

    /** Where the SSE stream is mounted by default. */
    public static final String EVENT_STREAM_PATH = "/events/stream";

    /** Paths reachable without a bearer token (the SSE stream authenticates its own way: SPEC Authentication 4). */
    public static final List<String> PUBLIC_PATHS = List.of("/observe/health", "/observe/live", "/observe/metrics", "/.well-known/",
            "/events/stream", "/auth/sign-up", "/auth/sign-in");

    /** Registers every route, the authentication filter and the error handlers on {@code routing}. */
    public void routing(HttpRouting.Builder routing) {
        routing.addFilter(auth);
        routing.register("/observe", health, metrics);
        mounts.forEach(m -> routing.register(m.path(), m.service()));
        routing.any((req, res) -> Problems.send(req, res,
                new ApiException(ErrorCode.NOT_FOUND, "no route for " + req.prologue().method().text() + " "
                        + req.path().path())));
        routing.error(ApiException.class, Problems::handle);
        routing.error(DatabaseException.class, (req, res, e) -> {
            if (e.getCause() instanceof SQLTransientException || e.sqlState() != null && e.sqlState().startsWith("08")) {
                Problems.send(req, res, new ApiException(ErrorCode.UNAVAILABLE, "the database is unavailable",
                        List.of(), Map.of("Retry-After", "2")));
            } else {
                Problems.handleUnexpected(req, res, e);
            }
        });
        routing.error(Exception.class, Problems::handleUnexpected);
    }
}
