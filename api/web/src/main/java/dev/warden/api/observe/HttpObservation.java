package dev.warden.api.observe;

import dev.warden.api.access.Principal;
import dev.warden.api.access.RouteTable;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.http.RequestIds;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import io.helidon.webserver.http.ServerRequest;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Observes every HTTP request: the timer {@code http.server.requests} (Prometheus
 * {@code http_server_requests_seconds}) by method, route template, status and outcome, with fixed latency buckets;
 * {@code warden.rate.limit.rejections} by route for every 429; and, when enabled, one access-log record per
 * request (method, route, status, duration, principal kind and id, the client's address as resolved through the
 * trusted proxies, and the request's id ({@link RequestIds}); never a token or a query string). Every answer carries
 * {@code X-Request-Id}. The route is
 * the declared pattern ({@code /agents/{id}}), never the raw path, so the series stay bounded; a request that
 * matches no route is {@code UNMATCHED}. Runs first, so it sees requests the rate limiter or the authentication
 * refuses.
 */
public final class HttpObservation implements Filter {
    /** The latency buckets of {@code http_server_requests_seconds}. */
    static final Duration[] BUCKETS = {
        Duration.ofMillis(1),
        Duration.ofMillis(2),
        Duration.ofMillis(5),
        Duration.ofMillis(10),
        Duration.ofMillis(25),
        Duration.ofMillis(50),
        Duration.ofMillis(100),
        Duration.ofMillis(250),
        Duration.ofMillis(500),
        Duration.ofSeconds(1),
        Duration.ofMillis(2500),
        Duration.ofSeconds(5),
        Duration.ofSeconds(10)
    };

    static final String UNMATCHED = "UNMATCHED";

    private final MeterRegistry registry;
    private final RouteTable routes;
    private final boolean accessLog;
    private final java.util.function.Function<ServerRequest, String> clientAddress;
    private final Logger access = Logs.access();
    /** The timer of each method, route and status seen: found with one map lookup per request. */
    private final ConcurrentMap<String, Timer> timers = new ConcurrentHashMap<>();

    /**
     * @param routes        the route table the authentication filter reads (filled while the routing is built)
     * @param accessLog     whether to write the access log ({@code warden.log.access})
     * @param clientAddress the client's address as Warden resolves it (the trusted-proxy rules of rate limiting)
     */
    public HttpObservation(
            MeterRegistry registry,
            RouteTable routes,
            boolean accessLog,
            java.util.function.Function<ServerRequest, String> clientAddress) {
        this.registry = registry;
        this.routes = routes;
        this.accessLog = accessLog;
        this.clientAddress = clientAddress;
    }

    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        long started = System.nanoTime();
        String requestId = RequestIds.assign(req, res);
        try {
            chain.proceed();
        } finally {
            long nanos = System.nanoTime() - started;
            String method = req.prologue().method().text();
            String route = route(routes, req);
            int status = res.status().code();
            timers.computeIfAbsent(
                            method + ' ' + route + ' ' + status,
                            k -> Timer.builder("http.server.requests")
                                    .description("HTTP requests served, by route template, method and status.")
                                    .tags(
                                            "method",
                                            method,
                                            "route",
                                            route,
                                            "status",
                                            Integer.toString(status),
                                            "outcome",
                                            outcome(status))
                                    .serviceLevelObjectives(BUCKETS)
                                    .register(registry))
                    .record(nanos, TimeUnit.NANOSECONDS);
            if (status == 429) {
                Counter.builder("warden.rate.limit.rejections")
                        .description("Requests refused by a rate limiter (429).")
                        .tag("endpoint", route)
                        .register(registry)
                        .increment();
            }
            if (accessLog && access.isLoggable(Level.INFO)) {
                Optional<Principal> principal = AuthFilter.principalIfAny(req);
                log(
                        method,
                        route,
                        status,
                        nanos,
                        principal.map(Principal::kind).orElse("anonymous"),
                        principal.map(Principal::subjectId),
                        clientAddress.apply(req),
                        requestId);
            }
        }
    }

    private void log(
            String method,
            String route,
            int status,
            long nanos,
            String principal,
            Optional<String> principalId,
            String client,
            String requestId) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("method", method);
        fields.put("route", route);
        fields.put("status", status);
        fields.put("durationMs", Math.round(nanos / 10_000.0) / 100.0);
        fields.put("principal", principal);
        principalId.ifPresent(id -> fields.put("principalId", id));
        fields.put("client", client);
        fields.put("requestId", requestId);
        LogRecord record = new LogRecord(
                Level.INFO,
                method + " " + route + " " + status + " " + fields.get("durationMs") + "ms " + principal + " "
                        + requestId);
        record.setLoggerName(access.getName());
        record.setParameters(new Object[] {fields});
        access.log(record);
    }

    /**
     * The route template of {@code req}: the one the authentication filter matched, else (a request refused before
     * it, by the rate limiter) matched here; {@link #UNMATCHED} when no route serves it.
     */
    static String route(RouteTable routes, ServerRequest req) {
        return AuthFilter.routeIfAny(req)
                .or(() -> routes.match(
                        req.prologue().method().text(), req.prologue().uriPath().path()))
                .map(RouteTable.Route::pattern)
                .orElse(UNMATCHED);
    }

    private static String outcome(int status) {
        return switch (status / 100) {
            case 1 -> "INFORMATIONAL";
            case 2 -> "SUCCESS";
            case 3 -> "REDIRECTION";
            case 4 -> "CLIENT_ERROR";
            case 5 -> "SERVER_ERROR";
            default -> "UNKNOWN";
        };
    }
}
