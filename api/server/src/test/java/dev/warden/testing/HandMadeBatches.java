package dev.warden.testing;

import dev.warden.pipeline.contract.AuditBatch;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditEntryCodec;
import dev.warden.pipeline.contract.AuditResult;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Audit batches written onto a platform's {@code warden.events} by hand, as anything with access to the broker
 * could: well-formed ones with entries that are not audit entries, and records that only claim to be batches.
 */
public final class HandMadeBatches {
    private HandMadeBatches() {}

    /** The bytes of an audit entry {@code id} for {@code agentId}, owned by {@code userId}, made {@code at}. */
    public static byte[] entry(String id, String agentId, String userId, Instant at) {
        return AuditEntryCodec.encode(new AuditEntry(
                id,
                agentId,
                Optional.of(userId),
                "admin",
                "read",
                "x:hand",
                Map.of(),
                AuditResult.ALLOWED,
                Optional.empty(),
                0.1,
                0,
                at,
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty()));
    }

    /** Writes a well-formed batch of {@code entries} (each any bytes at all); answers its offset. */
    public static long produce(TestPlatform warden, String key, List<byte[]> entries) {
        long now = System.currentTimeMillis();
        return produceRaw(
                warden,
                key,
                AuditBatch.encode(entries.stream()
                        .map(value -> new AuditBatch.Entry(now, "", value))
                        .toList()));
    }

    /** Writes {@code value} with the batch header, whatever it holds; answers its offset. */
    public static long produceRaw(TestPlatform warden, String key, byte[] value) {
        Map<String, Object> props =
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, warden.infra().kafkaBootstrap());
        try (KafkaProducer<String, byte[]> producer =
                new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer())) {
            RecordHeaders headers = new RecordHeaders();
            headers.add(AuditBatch.header());
            return producer.send(new ProducerRecord<>(warden.topics().events(), null, key, value, headers))
                    .get()
                    .offset();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }
}
