package dev.warden.api.authorize;

import dev.warden.api.http.ApiException;
import dev.warden.api.http.ErrorCode;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditEntryCodec;
import java.util.List;
import java.util.Map;
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

    public AuditPublisher(Producer<String, byte[]> producer, String topic, long timeoutMillis) {
        this.producer = producer;
        this.topic = topic;
        this.timeoutMillis = timeoutMillis;
    }

    /**
     * Publishes {@code entry} keyed by its agent id and returns once acknowledged.
     *
     * @throws ApiException 503 when Kafka does not acknowledge in time
     */
    public RecordMetadata publish(AuditEntry entry) {
        try {
            return producer.send(new ProducerRecord<>(topic, entry.agentId(), AuditEntryCodec.encode(entry)))
                    .get(timeoutMillis, TimeUnit.MILLISECONDS);
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
