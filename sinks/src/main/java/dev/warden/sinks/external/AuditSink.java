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

    @Override
    default void close() {
    }

    /** The destination did not accept a batch. */
    class SinkException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public SinkException(String message) {
            super(message);
        }

        public SinkException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
