package dev.warden.api.observe;

import dev.warden.api.access.Access;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/**
 * {@code GET /observe/metrics}: every meter of this process in the Prometheus text format (0.0.4). Public, like
 * health, for scrapers inside the cluster; it carries counts and timings only, never ids or secrets.
 */
public final class MetricsRoutes implements DeclaredService {
    private final Metrics metrics;

    public MetricsRoutes(Metrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/metrics", Access.open(), this::metrics);
    }

    private void metrics(ServerRequest req, ServerResponse res) {
        WardenMeters.unreadableRows(metrics.registry());
        res.status(Status.OK_200);
        res.header(HeaderNames.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
        res.send(metrics.scrape());
    }
}
