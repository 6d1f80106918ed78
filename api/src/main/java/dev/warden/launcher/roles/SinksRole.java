package dev.warden.launcher.roles;

import dev.warden.api.config.WardenConfig;
import dev.warden.api.db.Database;
import dev.warden.api.observe.HealthCheck;
import dev.warden.sinks.external.AuditSink;
import dev.warden.sinks.postgres.PostgresAuditWriter;
import dev.warden.sinks.runtime.SinkCounters;
import dev.warden.sinks.runtime.SinkWorker;
import java.time.InstantSource;
import java.util.List;

/**
 * The {@code sinks} role: the connector-style workers. Today: the Postgres audit writer (exactly-once into
 * {@code audit_events}) with its fan-out to the configured external audit sinks.
 */
public final class SinksRole implements AutoCloseable {
    private final SinkWorker auditWorker;
    private final PostgresAuditWriter auditWriter;

    private SinksRole(SinkWorker auditWorker, PostgresAuditWriter auditWriter) {
        this.auditWorker = auditWorker;
        this.auditWriter = auditWriter;
    }

    /** Starts every sink worker. */
    public static SinksRole start(WardenConfig config, String bootstrap, Database db, List<AuditSink> externalSinks,
                                  SinkCounters counters, InstantSource clock) {
        PostgresAuditWriter writer = new PostgresAuditWriter(db.dataSource(), config.kafka().topics().audit(),
                externalSinks, counters);
        writer.ensurePartitions(clock.instant());
        SinkWorker worker = new SinkWorker(PostgresAuditWriter.SINK, bootstrap, config.streams().applicationPrefix()
                + "sink-", config.kafka().topics().audit(), 5_000, writer, counters);
        worker.start();
        return new SinksRole(worker, writer);
    }

    /** UP once the audit writer has joined its group and sought to its stored offsets. */
    public HealthCheck health() {
        return new HealthCheck() {
            @Override
            public String name() {
                return "audit-writer";
            }

            @Override
            public Result check() {
                return auditWorker.isAssigned() ? Result.up("consuming") : Result.down("joining the consumer group");
            }
        };
    }

    @Override
    public void close() {
        auditWorker.close();
        auditWriter.close();
    }
}
