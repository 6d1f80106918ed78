package dev.warden.sinks.external;

import dev.warden.pipeline.contract.AuditEntry;
import java.util.List;

/**
 * An external destination for audit entries (SIEM HTTP event collector, CloudEvents endpoint, OTLP/HTTP
 * logs). Called by the Postgres audit writer after each committed batch, best effort: a sink that fails
 * never blocks or undoes the canonical write, it is only counted ({@code AuditSinkFailed}).
 *
 * <p>Implementations must bound their own time (connect and request timeouts) and must be thread-safe.
 */
public interface AuditSink extends AutoCloseable {
    /** A short name for logs and metrics, e.g. {@code splunk-hec}. */
    String name();

    /**
     * Delivers one committed batch.
     *
     * @throws SinkException when the destination did not accept the batch (after the sink's own retries)
     */
    void send(List<AuditEntry> batch);

    /** The longest wait between two attempts of a failing batch (its durable worker's backoff ceiling). */
    default java.time.Duration retryCeiling() {
        return AuditSinks.DEFAULT_RETRY_CEILING;
    }

    @Override
    default void close() {}

    /**
     * The destination did not accept a batch. {@link #permanent()} when it refused the content (an HTTP 4xx
     * other than 408 and 429): sending the same entries again would fail the same way, so the caller isolates
     * the entry it refuses instead of dropping the whole batch.
     */
    class SinkException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final boolean permanent;
        private final transient java.util.Optional<java.time.Duration> retryAfter;
        private final int delivered;

        public SinkException(String message) {
            this(message, null, false);
        }

        public SinkException(String message, Throwable cause) {
            this(
                    message,
                    cause,
                    cause instanceof SinkException s && s.permanent(),
                    cause instanceof SinkException s ? s.retryAfter() : java.util.Optional.empty());
        }

        public SinkException(String message, Throwable cause, boolean permanent) {
            this(message, cause, permanent, java.util.Optional.empty());
        }

        /** A refusal with the wait the destination asked for ({@code Retry-After} of a 429 or 503). */
        public SinkException(
                String message, Throwable cause, boolean permanent, java.util.Optional<java.time.Duration> retryAfter) {
            this(message, cause, permanent, retryAfter, 0);
        }

        /**
         * A batch sent in several requests, whose first {@code delivered} entries the destination accepted before
         * it refused the next: the caller records them as delivered, so that a retry does not send them again.
         */
        public static SinkException afterDelivering(int delivered, String message, SinkException cause) {
            return new SinkException(message, cause, cause.permanent(), cause.retryAfter(), delivered);
        }

        private SinkException(
                String message,
                Throwable cause,
                boolean permanent,
                java.util.Optional<java.time.Duration> retryAfter,
                int delivered) {
            super(message, cause);
            this.permanent = permanent;
            this.retryAfter = retryAfter;
            this.delivered = delivered;
        }

        /** How many entries at the head of the batch the destination accepted before this failure (0: none). */
        public int delivered() {
            return delivered;
        }

        /** How long the destination asked to wait before the next attempt, if it said. */
        public java.util.Optional<java.time.Duration> retryAfter() {
            return retryAfter;
        }

        /** True when the destination refused the content itself, not just this attempt. */
        public boolean permanent() {
            return permanent;
        }
    }
}
