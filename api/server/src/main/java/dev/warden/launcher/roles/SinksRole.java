package dev.warden.launcher.roles;

import dev.warden.api.Component;
import dev.warden.api.config.WardenConfig;
import dev.warden.api.observe.HealthCheck;
import dev.warden.api.observe.HealthCheck.Result;
import dev.warden.api.observe.WardenMeters;
import dev.warden.runtime.consumer.GroupWaits;
import dev.warden.runtime.consumer.SinkControls;
import dev.warden.runtime.consumer.SinkCounters;
import dev.warden.runtime.consumer.SinkHealth;
import dev.warden.runtime.consumer.SinkWorker;
import dev.warden.runtime.db.Database;
import dev.warden.sinks.external.AuditSink;
import dev.warden.sinks.external.DurableSinkWriter;
import dev.warden.sinks.postgres.AuditEventPublisher;
import dev.warden.sinks.postgres.PostgresAuditWriter;
import dev.warden.sinks.streamstore.StreamEventStoreWriter;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.admin.Admin;

/**
 * The {@code sinks} role: the connector-style workers: the Postgres audit writer (exactly-once into
 * {@code audit_events}, publishing each entry as an {@code audit} stream event in the same transaction) with its
 * fan-out to the configured external audit sinks, and the stream-event store
 * ({@code service_stream_events}, for SSE replay). Health is DEGRADED, naming the sink and why, while a worker
 * keeps failing or falls behind.
 */
public final class SinksRole implements Component {
    private final SinkWorker auditWorker;
    private final PostgresAuditWriter auditWriter;
    private final SinkWorker streamStoreWorker;
    private final List<SinkWorker> externalWorkers;
    private final List<AuditSink> externalSinks;

    private SinksRole(
            SinkWorker auditWorker,
            PostgresAuditWriter auditWriter,
            SinkWorker streamStoreWorker,
            List<SinkWorker> externalWorkers,
            List<AuditSink> externalSinks) {
        this.auditWorker = auditWorker;
        this.auditWriter = auditWriter;
        this.streamStoreWorker = streamStoreWorker;
        this.externalWorkers = externalWorkers;
        this.externalSinks = externalSinks;
    }

    /** Starts every sink worker, without tracing. */
    public static SinksRole start(
            WardenConfig config,
            String bootstrap,
            Admin admin,
            Database db,
            List<AuditSink> externalSinks,
            SinkCounters counters,
            InstantSource clock) {
        return start(
                config,
                bootstrap,
                admin,
                db,
                externalSinks,
                counters,
                clock,
                OpenTelemetry.noop().getTracer("warden"));
    }

    /**
     * Starts every sink worker, with a span per stored record that carries a trace context. With
     * {@code warden.events.mirror-audit} on, the audit writer publishes each entry it stores as an {@code audit}
     * stream event ({@link AuditEventPublisher}) and batches for {@code warden.streams.mirror-commit-interval-ms}
     * at most, which bounds how long such an event waits before it is published.
     */
    public static SinksRole start(
            WardenConfig config,
            String bootstrap,
            Admin admin,
            Database db,
            List<AuditSink> externalSinks,
            SinkCounters counters,
            InstantSource clock,
            Tracer tracer) {
        boolean events = config.eventStream().mirrorAudit();
        if (events) {
            AuditMirrorHandover.takeOver(
                    admin,
                    db,
                    StreamsSettings.applicationId(config, AuditMirrorHandover.MIRROR),
                    config.kafka().topics().audit());
        }
        PostgresAuditWriter writer = new PostgresAuditWriter(
                db.dataSource(),
                config.kafka().topics().audit(),
                counters,
                events
                        ? new AuditEventPublisher(
                                bootstrap, config.kafka().topics().events(), config.instanceId(), tracer)
                        : null);
        writer.ensurePartitions(clock.instant());
        GroupWaits background = backgroundWaits(config);
        SinkWorker worker = new SinkWorker(
                PostgresAuditWriter.SINK,
                bootstrap,
                config.streams().applicationPrefix() + "sink-",
                config.kafka().topics().audit(),
                20_000,
                writer,
                counters,
                tracer,
                background.withFetchMaxWait(
                        events
                                ? Duration.ofMillis(config.streams().mirrorCommitIntervalMs())
                                : Duration.ofMillis(SinkWorker.BATCH_FETCH_MAX_WAIT_MS)));
        worker.start();
        SinkWorker streamStore = new SinkWorker(
                StreamEventStoreWriter.SINK,
                bootstrap,
                config.streams().applicationPrefix() + "sink-",
                config.kafka().topics().events(),
                5_000,
                new StreamEventStoreWriter(
                        db.dataSource(),
                        config.kafka().topics().events(),
                        Duration.ofDays(config.eventStream().retentionDays()),
                        clock),
                new SinkCounters(),
                tracer,
                // Nobody waits on the store: a reconnecting SSE client is served from the ring that covers its lag.
                background);
        streamStore.start();
        // Each external audit sink is a consumer of warden.audit of its own, with its own position: durable, and
        // never in the way of the canonical write or of another sink (docs/audit-sinks.md).
        Duration retention = retention(admin, config.kafka().topics().audit());
        List<SinkWorker> external = new ArrayList<>();
        for (AuditSink sink : externalSinks) {
            DurableSinkWriter durable = new DurableSinkWriter(
                    sink, db.dataSource(), config.kafka().topics().audit(), counters, sink.retryCeiling());
            SinkWorker w = new SinkWorker(
                            durable.name(),
                            bootstrap,
                            config.streams().applicationPrefix() + "sink-",
                            config.kafka().topics().audit(),
                            EXTERNAL_BATCH,
                            durable,
                            new SinkCounters(),
                            tracer,
                            background.withFetchMaxWait(Duration.ofMillis(SinkWorker.BATCH_FETCH_MAX_WAIT_MS)))
                    .controlledBy(SinkControls.of(db.dataSource(), durable.name()));
            w.health().retention(retention);
            w.start();
            external.add(w);
        }
        return new SinksRole(worker, writer, streamStore, List.copyOf(external), externalSinks);
    }

    /**
     * The waits of the group consumers nobody waits on (the stream store, webhooks, the Shared Signals feeder):
     * {@code warden.streams.background-fetch-wait-ms}, {@code warden.streams.group-retry-backoff-ms} and
     * {@code warden.streams.group-heartbeat-interval-ms}.
     */
    public static GroupWaits backgroundWaits(WardenConfig config) {
        return new GroupWaits(
                config.streams().backgroundFetchWait(),
                config.streams().groupRetryBackoff(),
                config.streams().groupHeartbeatInterval());
    }

    @Override
    public List<HealthCheck> healthChecks() {
        return List.of(health());
    }

    /** Each sink worker's lag, dead letters and batches ({@code warden.sink.*}). */
    @Override
    public void bindMeters(MeterRegistry registry) {
        WardenMeters.sinks(registry, sinkHealth());
    }

    /** The most entries an external sink gets in one request. */
    static final int EXTERNAL_BATCH = 500;

    /** The topic's {@code retention.ms} (zero when it cannot be read or is unlimited). */
    private static Duration retention(Admin admin, String topic) {
        try {
            org.apache.kafka.common.config.ConfigResource resource = new org.apache.kafka.common.config.ConfigResource(
                    org.apache.kafka.common.config.ConfigResource.Type.TOPIC, topic);
            var entry = admin.describeConfigs(List.of(resource))
                    .all()
                    .get(10, java.util.concurrent.TimeUnit.SECONDS)
                    .get(resource)
                    .get("retention.ms");
            long ms = entry == null ? -1 : Long.parseLong(entry.value());
            return ms > 0 ? Duration.ofMillis(ms) : Duration.ZERO;
        } catch (Exception e) {
            return Duration.ZERO;
        }
    }

    /** UP once every worker has joined its group and sought to its stored offsets. */
    public HealthCheck health() {
        return HealthCheck.of("sink-workers", () -> {
            if (!auditWorker.isAssigned()
                    || !streamStoreWorker.isAssigned()
                    || !externalWorkers.stream().allMatch(SinkWorker::isAssigned)) {
                return Result.down("joining the consumer group");
            }
            List<String> problems = sinkHealth().stream()
                    .flatMap(h -> h.degradedReason().map(r -> h.sink() + ": " + r).stream())
                    .toList();
            return problems.isEmpty() ? Result.up("consuming") : Result.degraded(String.join("; ", problems));
        });
    }

    /** Failures, lag and dead letters of each worker, for health and metrics. */
    public List<SinkHealth> sinkHealth() {
        List<SinkHealth> all = new ArrayList<>(List.of(auditWorker.health(), streamStoreWorker.health()));
        externalWorkers.forEach(w -> all.add(w.health()));
        return all;
    }

    @Override
    public void close() {
        externalWorkers.forEach(SinkWorker::close);
        externalSinks.forEach(AuditSink::close);
        streamStoreWorker.close();
        auditWorker.close();
        auditWriter.close();
    }
}
