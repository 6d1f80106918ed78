package dev.warden.api.observe;

import dev.warden.sinks.runtime.SinkCounters;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/**
 * {@code GET /observe/metrics}: this process's counters in the Prometheus text format (0.0.4). Public, like
 * health, for scrapers inside the cluster; it carries counts only, never ids or secrets.
 */
public final class MetricsRoutes implements HttpService {
    private final SinkCounters counters;

    public MetricsRoutes(SinkCounters counters) {
        this.counters = counters;
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
        res.status(Status.OK_200);
        res.header(HeaderNames.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
        res.send(out.toString());
    }

    private static void counter(StringBuilder out, String name, String help, long value) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n')
                .append("# TYPE ").append(name).append(" counter\n")
                .append(name).append(' ').append(value).append('\n');
    }
}
