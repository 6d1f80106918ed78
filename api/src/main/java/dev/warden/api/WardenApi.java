package dev.warden.api;

import dev.warden.api.agents.AgentRoutes;
import dev.warden.api.auth.ApiTokenRoutes;
import dev.warden.api.audit.AuditRoutes;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.dashboard.DashboardRoutes;
import dev.warden.api.events.stream.EventStream;
import dev.warden.api.observe.MetricsRoutes;
import dev.warden.api.authorize.AuthorizeRoutes;
import dev.warden.api.delegations.DelegationRoutes;
import dev.warden.api.db.DatabaseException;
import dev.warden.api.http.ApiException;
import dev.warden.api.http.ErrorCode;
import dev.warden.api.http.Problems;
import dev.warden.api.observe.HealthRoutes;
import io.helidon.webserver.http.HttpRouting;
import java.sql.SQLTransientException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The HTTP surface of Warden as one pure wiring function, shared by the launcher and the tests. Routes
 * that a role does not run are simply absent ({@code agents} empty on a pipeline-only process).
 *
 * @param agents    the agent endpoints, present when the API role runs
 * @param apiTokens the API token endpoints, present when the API role runs
 * @param delegations the delegation endpoints, present when the API role runs
 * @param authorize   {@code POST /authorize}, present when the API role runs
 * @param audit       the audit query and export endpoints, present when the API role runs
 * @param dashboard   {@code GET /dashboard/stats}, present when the API role runs
 * @param eventStream the SSE stream at {@value #EVENT_STREAM_PATH}, present when the API role runs
 */
public record WardenApi(AuthFilter auth, HealthRoutes health, MetricsRoutes metrics, Optional<AgentRoutes> agents,
                        Optional<ApiTokenRoutes> apiTokens, Optional<DelegationRoutes> delegations,
                        Optional<AuthorizeRoutes> authorize, Optional<AuditRoutes> audit,
                        Optional<DashboardRoutes> dashboard, Optional<EventStream> eventStream) {

    /** Where the SSE stream is mounted by default. */
    public static final String EVENT_STREAM_PATH = "/events/stream";

    /** Paths reachable without a bearer token (the SSE stream authenticates its own way: SPEC Authentication 4). */
    public static final List<String> PUBLIC_PATHS = List.of("/observe/health", "/observe/live", "/observe/metrics", "/.well-known/",
            "/events/stream");

    /** Registers every route, the authentication filter and the error handlers on {@code routing}. */
    public void routing(HttpRouting.Builder routing) {
        routing.addFilter(auth);
        routing.register("/observe", health, metrics);
        agents.ifPresent(a -> routing.register("/agents", a));
        apiTokens.ifPresent(t -> routing.register("/auth/tokens", t));
        delegations.ifPresent(d -> routing.register("/delegations", d));
        authorize.ifPresent(a -> routing.register("/authorize", a));
        audit.ifPresent(a -> routing.register("/audit", a));
        dashboard.ifPresent(d -> routing.register("/dashboard", d));
        eventStream.ifPresent(s -> routing.register(EVENT_STREAM_PATH, s));
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
