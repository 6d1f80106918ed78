package dev.warden.api.observe;

import dev.warden.api.access.Access;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.sinks.runtime.SinkCounters;
import dev.warden.sinks.runtime.SinkHealth;
import dev.warden.sinks.webhooks.WebhookCounters;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.List;

/**
 * {@code GET /observe/metrics}: this process's counters in the Prometheus text format (0.0.4). Public, like
 * health, for scrapers inside the cluster; it carries counts only, never ids or secrets.
 */
public final class MetricsRoutes implements DeclaredService {
    private final SinkCounters counters;
    private final WebhookCounters webhooks;
    private final List<Gauge> gauges;
    private final List<SinkHealth> sinks;

    public MetricsRoutes(SinkCounters counters) {
        this(counters, new WebhookCounters(), List.of());
    }

    /** @param gauges read at each scrape; the list may still be filled after construction (not copied) */
    public MetricsRoutes(SinkCounters counters, WebhookCounters webhooks, List<Gauge> gauges) {
        this(counters, webhooks, gauges, List.of());
    }

    /** @param sinks the sink workers of this process (labelled series per sink); filled like {@code gauges} */
    public MetricsRoutes(SinkCounters counters, WebhookCounters webhooks, List<Gauge> gauges, List<SinkHealth> sinks) {
        this.counters = counters;
        this.webhooks = webhooks;
        this.gauges = gauges;
        this.sinks = sinks;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/metrics", Access.open(), this::metrics);
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
        java.util.Map<String, Long> unreadable = dev.warden.api.db.StoredRows.skipped();
        if (!unreadable.isEmpty()) {
            out.append("# HELP warden_unreadable_rows_total Stored rows skipped on read because they could not be decoded.\n")
                    .append("# TYPE warden_unreadable_rows_total counter\n");
            unreadable.forEach((table, n) -> out.append("warden_unreadable_rows_total{table=\"").append(table)
                    .append("\"} ").append(n).append('\n'));
        }
        perSink(out, "warden_sink_dead_letters_total", "counter",
                "Records a sink gave up on and stored in sink_dead_letters.", SinkHealth::deadLetteredCount);
        perSink(out, "warden_sink_failed_batches_total", "counter",
                "Batches whose store failed and was retried.", SinkHealth::failedBatchCount);
        perSink(out, "warden_sink_lag_records", "gauge",
                "Records between the sink's position and the end of its topic.", SinkHealth::currentLag);
        perSink(out, "warden_sink_degraded", "gauge",
                "1 while the sink keeps failing or falls behind (see /observe/health), else 0.",
                h -> h.degradedReason().isPresent() ? 1 : 0);
        res.status(Status.OK_200);
        res.header(HeaderNames.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
        res.send(out.toString());
    }

    private void perSink(StringBuilder out, String name, String type, String help,
                         java.util.function.ToLongFunction<SinkHealth> value) {
        if (sinks.isEmpty()) {
            return;
        }
        out.append("# HELP ").append(name).append(' ').append(help).append('\n')
                .append("# TYPE ").append(name).append(' ').append(type).append('\n');
        for (SinkHealth sink : sinks) {
            out.append(name).append("{sink=\"").append(sink.sink()).append("\"} ").append(value.applyAsLong(sink))
                    .append('\n');
        }
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
