package dev.warden.api.authorize;

import dev.warden.api.http.ApiException;
import dev.warden.api.http.ErrorCode;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditEntryCodec;
import java.util.List;
import dev.warden.sinks.runtime.SinkCounters;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Publishes a decision's audit entry to {@code warden.audit} and waits until Kafka has acknowledged it
 * ({@code acks=all}, idempotent producer). If Kafka cannot take it in time the caller gets a 503 with
 * {@code Retry-After}: a decision is never answered without its audit record.
 */
public final class AuditPublisher {
    private static final Logger LOG = Logger.getLogger(AuditPublisher.class.getName());

    private final Producer<String, byte[]> producer;
    private final String topic;
    private final long timeoutMillis;
    private final SinkCounters counters;
    private final Map<Integer, Long> lastOffsets = new ConcurrentHashMap<>();

    public AuditPublisher(Producer<String, byte[]> producer, String topic, long timeoutMillis, SinkCounters counters) {
        this.producer = producer;
        this.topic = topic;
        this.timeoutMillis = timeoutMillis;
        this.counters = counters;
    }

    /** The highest offset acknowledged per partition of the audit topic, for read-your-writes. */
    public Map<Integer, Long> acknowledgedOffsets() {
        return Map.copyOf(lastOffsets);
    }

    /**
     * Publishes {@code entry} keyed by its agent id and returns once acknowledged.
     *
     * @throws ApiException 503 when Kafka does not acknowledge in time
     */
    public RecordMetadata publish(AuditEntry entry) {
        try {
            RecordMetadata acked = producer.send(new ProducerRecord<>(topic, entry.agentId(),
                    AuditEntryCodec.encode(entry))).get(timeoutMillis, TimeUnit.MILLISECONDS);
            counters.emitted();
            lastOffsets.merge(acked.partition(), acked.offset(), Math::max);
            return acked;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unavailable();
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            LOG.log(Level.WARNING, "audit entry not acknowledged by Kafka: " + e.getMessage());
            throw unavailable();
        }
    }

    private static ApiException unavailable() {
        return new ApiException(ErrorCode.UNAVAILABLE, "the audit log is unavailable; no decision was made",
                List.of(), Map.of("Retry-After", "1"));
    }
}
