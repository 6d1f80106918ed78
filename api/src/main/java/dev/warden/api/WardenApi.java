package dev.warden.api;

import dev.warden.api.auth.AuthFilter;
import dev.warden.api.db.DatabaseException;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.NotFoundException;
import dev.warden.api.errors.UnavailableException;
import dev.warden.api.errors.WardenException;
import dev.warden.api.http.ErrorMapper;
import dev.warden.api.http.Problems;
import dev.warden.api.observe.HealthRoutes;
import dev.warden.api.observe.MetricsRoutes;
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
 * pipeline-only process), registered in order, so several services may share a prefix.
 */
public record WardenApi(AuthFilter auth, HealthRoutes health, MetricsRoutes metrics, List<Mount> mounts) {

    public WardenApi {
        mounts = List.copyOf(mounts);
    }

    /**
     * A service mounted under a path prefix, and how its surface shows errors (problem+json unless it says
     * otherwise: the OAuth endpoints answer RFC 6749 bodies, browser pages HTML).
     */
    public record Mount(String path, HttpService service, ErrorMapper errors) {
        /** A REST mount: errors as problem+json. */
        public Mount(String path, HttpService service) {
            this(path, service, Problems.REST);
        }
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
        routing.any((req, res) -> mapperFor(req).send(req, res,
                new NotFoundException(ErrorCode.NOT_FOUND, "no route for " + req.prologue().method().text() + " "
                        + req.path().path())));
        routing.error(WardenException.class, (req, res, e) -> mapperFor(req).send(req, res, e));
        routing.error(DatabaseException.class, (req, res, e) -> {
            if (e.getCause() instanceof SQLTransientException || e.sqlState() != null && e.sqlState().startsWith("08")) {
                mapperFor(req).send(req, res, new UnavailableException("the database is unavailable", Duration.ofSeconds(2)));
            } else {
                Problems.handleUnexpected(req, res, e);
            }
        });
        routing.error(Exception.class, Problems::handleUnexpected);
    }

    /** The error surface of the mount a request falls under (the longest matching prefix), else problem+json. */
    private ErrorMapper mapperFor(ServerRequest req) {
        String path = req.path().path();
        return mounts.stream()
                .filter(m -> path.equals(m.path()) || path.startsWith(m.path().endsWith("/") ? m.path() : m.path() + "/"))
                .max(Comparator.comparingInt(m -> m.path().length()))
                .map(Mount::errors).orElse(Problems.REST);
    }
}
