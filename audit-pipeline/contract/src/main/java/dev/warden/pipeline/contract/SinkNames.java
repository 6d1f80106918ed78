package dev.warden.pipeline.contract;

/**
 * The names the sinks go by in {@code sink_offsets}, {@code sink_dead_letters}, health and metrics: published,
 * so that readers (the API's read-your-writes wait, SSE replay, the dead-letter route) need not reach into a
 * sink's classes. Together with the runtime's {@code SinkCounters} and {@code SinkHealth}, the sinks' surface.
 */
public final class SinkNames {
    /** The PostgreSQL audit writer ({@code warden.audit} into {@code audit_events}). */
    public static final String POSTGRES_AUDIT = "postgres-audit";
    /** The stream-event store ({@code warden.events} into {@code service_stream_events}). */
    public static final String STREAM_STORE = "stream-store";
    /** Webhook delivery. */
    public static final String WEBHOOKS = "webhooks";
    /** The Shared Signals feeder ({@code warden.events} into the Security Event Token outbox). */
    public static final String SHARED_SIGNALS = "shared-signals";
    /** Prefix of an external audit sink's name in dead letters ({@code audit-sink:splunk-hec}). */
    public static final String AUDIT_SINK_PREFIX = "audit-sink:";

    private SinkNames() {}
}
