package dev.warden.sinks.external;

import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.Json;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Publishes audit entries to a Kafka topic, keyed by audit id, in {@code format} (OCSF by default), for teams that
 * ingest topics directly. The producer is idempotent with {@code acks=all}; a batch counts as delivered once every
 * record is acknowledged. Extra producer settings (TLS, SASL) come from the {@code kafka.*} options.
 */
public final class KafkaTopicSink implements AuditSink {
    /** The sink's type name. */
    public static final String NAME = "kafka-topic";

    private final String topic;
    private final AuditFormat format;
    private final Duration timeout;
    private final KafkaProducer<String, byte[]> producer;

    public KafkaTopicSink(
            String bootstrap, String topic, AuditFormat format, Duration timeout, Map<String, String> settings) {
        this.topic = topic;
        this.format = format;
        this.timeout = timeout;
        Properties p = new Properties();
        settings.forEach(p::put);
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "warden-audit-sink-" + topic);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) timeout.toMillis());
        int request = (int) Math.min(timeout.toMillis(), 30_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, request);
        // Kafka requires delivery.timeout.ms >= linger.ms + request.timeout.ms
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) Math.max(timeout.toMillis(), request + 5 + 1_000));
        this.producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void send(List<AuditEntry> batch) {
        List<Future<RecordMetadata>> sent = new ArrayList<>(batch.size());
        try {
            for (AuditEntry entry : batch) {
                byte[] value = Json.mapper().writeValueAsBytes(format.encode(entry));
                sent.add(producer.send(new ProducerRecord<>(topic, entry.id(), value)));
            }
            producer.flush();
            for (Future<RecordMetadata> f : sent) {
                f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new SinkException(
                    NAME + ": " + topic + " did not take the batch: " + cause,
                    cause,
                    cause instanceof RecordTooLargeException);
        } catch (TimeoutException e) {
            throw new SinkException(
                    NAME + ": no acknowledgement from " + topic + " within " + timeout.toMillis() + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SinkException(NAME + ": interrupted", e);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new SinkException(NAME + ": cannot encode: " + e.getMessage(), e, true);
        } catch (org.apache.kafka.common.KafkaException e) {
            throw new SinkException(NAME + ": " + topic + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
