package dev.warden.api.observe;

import dev.warden.api.events.stream.EventStream;
import dev.warden.runtime.consumer.SinkCounters;
import dev.warden.runtime.consumer.SinkHealth;
import dev.warden.runtime.db.StoredRows;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Registers the counters Warden's components keep themselves (plain {@code LongAdder}s, so the modules below the
 * API tier need no metrics library) as meters. The series keep the names the hand-written exposition had
 * ({@code warden_audit_emitted_total}, {@code warden_sink_lag_records{sink}}, …); docs/operations.md lists them.
 */
public final class WardenMeters {
    private WardenMeters() {}

    /** The audit path's counters: emitted, written, dropped, failed, failing external sinks. */
    public static void audit(MeterRegistry registry, SinkCounters counters) {
        counter(
                registry,
                "warden.audit.emitted",
                "Audit entries acknowledged by Kafka.",
                counters,
                c -> c.snapshot().auditEmitted());
        counter(
                registry,
                "warden.audit.written",
                "Audit rows newly stored in Postgres.",
                counters,
                c -> c.snapshot().auditWritten());
        counter(
                registry,
                "warden.audit.dropped",
                "Audit records skipped as undecodable.",
                counters,
                c -> c.snapshot().auditDropped());
        counter(
                registry,
                "warden.audit.failed",
                "Audit records in batches whose write failed and was retried.",
                counters,
                c -> c.snapshot().auditFailed());
        counter(
                registry,
                "warden.audit.sink.failed",
                "Failing external sinks, once per sink per batch.",
                counters,
                c -> c.snapshot().auditSinkFailed());
    }

    /** Per sink worker: lag, degraded, dead letters, failed batches, batches stored with their size and time. */
    public static void sinks(MeterRegistry registry, List<SinkHealth> sinks) {
        for (SinkHealth sink : sinks) {
            String name = sink.sink();
            Gauge.builder("warden.sink.lag.records", sink, SinkHealth::currentLag)
                    .description("Records between the sink's position and the end of its topic.")
                    .tag("sink", name)
                    .register(registry);
            Gauge.builder(
                            "warden.sink.lag.seconds",
                            sink,
                            h -> h.oldestPendingAgeMillis(System.currentTimeMillis()) / 1000.0)
                    .description(
                            "Age of the oldest record the sink has read and not yet delivered (0 when none waits).")
                    .tag("sink", name)
                    .register(registry);
            Gauge.builder("warden.sink.degraded", sink, h -> h.degradedReason().isPresent() ? 1 : 0)
                    .description("1 while the sink keeps failing or falls behind (see /observe/health), else 0.")
                    .tag("sink", name)
                    .register(registry);
            FunctionCounter.builder("warden.sink.dead.letters", sink, SinkHealth::deadLetteredCount)
                    .description("Records a sink gave up on and stored in sink_dead_letters.")
                    .tag("sink", name)
                    .register(registry);
            FunctionCounter.builder("warden.sink.failed.batches", sink, SinkHealth::failedBatchCount)
                    .description("Batches whose store failed and was retried.")
                    .tag("sink", name)
                    .register(registry);
            FunctionCounter.builder("warden.sink.batch.records", sink, SinkHealth::storedRecordCount)
                    .description("Records in the batches stored (divide by warden_sink_write_seconds_count for the "
                            + "mean batch size).")
                    .tag("sink", name)
                    .register(registry);
            // A histogram (fixed buckets, 1 ms to 10 s): a sink's slow tail shows, not only its mean.
            io.micrometer.core.instrument.Timer write = io.micrometer.core.instrument.Timer.builder("warden.sink.write")
                    .description("Batches stored, and the time from handing each to the store to its commit.")
                    .tag("sink", name)
                    .serviceLevelObjectives(HttpObservation.BUCKETS)
                    .register(registry);
            sink.onStoreTime(nanos -> write.record(nanos, TimeUnit.NANOSECONDS));
        }
    }

    /** This instance's event stream: connections and their cap, events delivered, slow clients dropped. */
    public static void stream(MeterRegistry registry, EventStream stream) {
        Gauge.builder("warden.sse.connections", stream, EventStream::getConnectionCount)
                .description("Open event-stream (SSE) connections on this instance.")
                .register(registry);
        Gauge.builder("warden.sse.max.connections", stream, EventStream::maxConnections)
                .description("The event stream's connection cap (maxConnections).")
                .register(registry);
        counter(
                registry,
                "warden.sse.deliveries",
                "Events written to stream clients (replayed and live).",
                stream,
                s -> s.counters().deliveredCount());
        counter(
                registry,
                "warden.sse.dropped",
                "Stream clients disconnected for not keeping up.",
                stream,
                s -> s.counters().droppedCount());
    }

    /** Stored rows skipped on read because they could not be decoded, per table (tables appear as they occur). */
    public static void unreadableRows(MeterRegistry registry) {
        StoredRows.skipped()
                .keySet()
                .forEach(table -> FunctionCounter.builder(
                                "warden.unreadable.rows",
                                table,
                                t -> StoredRows.skipped().getOrDefault(t, 0L))
                        .description("Stored rows skipped on read because they could not be decoded.")
                        .tag("table", table)
                        .register(registry));
    }

    private static <T> void counter(
            MeterRegistry registry, String name, String help, T source, ToDoubleFunction<T> value) {
        FunctionCounter.builder(name, source, value).description(help).register(registry);
    }
}
