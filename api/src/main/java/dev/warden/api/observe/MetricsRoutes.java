package dev.warden.api.observe;

import dev.warden.sinks.runtime.SinkCounters;
import dev.warden.sinks.webhooks.WebhookCounters;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.List;

/**
 * {@code GET /observe/metrics}: this process's counters in the Prometheus text format (0.0.4). Public, like
 * health, for scrapers inside the cluster; it carries counts only, never ids or secrets.
 */
public final class MetricsRoutes implements HttpService {
    private final SinkCounters counters;
    private final WebhookCounters webhooks;
    private final List<Gauge> gauges;

    public MetricsRoutes(SinkCounters counters) {
        this(counters, new WebhookCounters(), List.of());
    }

    /** @param gauges read at each scrape; the list may still be filled after construction (not copied) */
    public MetricsRoutes(SinkCounters counters, WebhookCounters webhooks, List<Gauge> gauges) {
        this.counters = counters;
        this.webhooks = webhooks;
        this.gauges = gauges;
    }

    @Override
    public void routing(HttpRules rules) {
        rules.get("/metrics", this::metrics);
    }

    private void metrics(ServerRequest req, ServerResponse res) {
        SinkCounters.Snapshot s = counters.snapshot();
        StringBuilder out = new StringBuilder();
        counter(out, "warden_audit_emitted_total", "Audit entries acknowledged by Kafka (AuditEmitted).", s.auditEmitted());
        counter(out, "warden_audit_written_total", "Audit rows newly stored in Postgres (AuditWritten).", s.auditWritten());
        counter(out, "warden_audit_dropped_total", "Audit records skipped as undecodable (AuditDropped).", s.auditDropped());
        counter(out, "warden_audit_failed_total", "Audit records in batches whose write failed and was retried (AuditFailed).",
                s.auditFailed());
        counter(out, "warden_audit_sink_failed_total", "Failing external sinks, once per sink per batch (AuditSinkFailed).",
                s.auditSinkFailed());
        WebhookCounters.Snapshot w = webhooks.snapshot();
        counter(out, "warden_webhooks_delivered_total", "Webhook deliveries answered 2xx.", w.delivered());
        counter(out, "warden_webhooks_retried_total", "Webhook delivery attempts after the first.", w.retried());
        counter(out, "warden_webhooks_dropped_total",
                "Webhook deliveries given up (retries exhausted, 3xx/4xx, refused target).", w.dropped());
        counter(out, "warden_webhooks_disabled_total", "Webhook endpoints disabled by a 410 answer.", w.disabled());
        for (Gauge g : gauges) {
            metric(out, g.name(), "gauge", g.help(), g.value().getAsLong());
        }
        res.status(Status.OK_200);
        res.header(HeaderNames.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
        res.send(out.toString());
    }

    private static void counter(StringBuilder out, String name, String help, long value) {
        metric(out, name, "counter", help, value);
    }

    private static void metric(StringBuilder out, String name, String type, String help, long value) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n')
                .append("# TYPE ").append(name).append(' ').append(type).append('\n')
                .append(name).append(' ').append(value).append('\n');
    }
}
