package dev.warden.runtime.consumer;

import java.util.concurrent.atomic.LongAdder;

/**
 * The audit statistics counters (SPEC: Audit streaming), process-wide, never decreasing:
 * {@code AuditEmitted} (entries acknowledged by Kafka on this process), {@code AuditWritten} (rows newly
 * stored in Postgres), {@code AuditDropped} (records that could not be decoded and were skipped),
 * {@code AuditFailed} (records of batches whose write failed and was retried) and {@code AuditSinkFailed}
 * (once per failing external sink per batch). Thread-safe.
 */
public final class SinkCounters {
    private final LongAdder emitted = new LongAdder();
    private final LongAdder written = new LongAdder();
    private final LongAdder dropped = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder sinkFailed = new LongAdder();

    public void emitted() {
        emitted.increment();
    }

    public void written(long n) {
        written.add(n);
    }

    public void dropped(long n) {
        dropped.add(n);
    }

    public void failed(long n) {
        failed.add(n);
    }

    public void sinkFailed() {
        sinkFailed.increment();
    }

    /** A consistent-enough snapshot of every counter. */
    public Snapshot snapshot() {
        return new Snapshot(emitted.sum(), written.sum(), dropped.sum(), failed.sum(), sinkFailed.sum());
    }

    /** Counter values at one moment. */
    public record Snapshot(
            long auditEmitted, long auditWritten, long auditDropped, long auditFailed, long auditSinkFailed) {}
}
