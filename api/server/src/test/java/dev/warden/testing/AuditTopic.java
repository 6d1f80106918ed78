package dev.warden.testing;

import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditEntryCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads audit entries back from a platform's {@code warden.audit} topic. */
public final class AuditTopic {
    private AuditTopic() {}

    /** Every entry matching {@code filter}, waiting until at least {@code expected} are there (max 30 s). */
    public static List<AuditEntry> read(TestPlatform warden, Predicate<AuditEntry> filter, int expected) {
        Map<String, Object> props = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                warden.infra().kafkaBootstrap(),
                ConsumerConfig.GROUP_ID_CONFIG,
                "audit-reader-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest");
        List<AuditEntry> entries = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(warden.topics().audit()));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (entries.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> {
                    AuditEntry entry = AuditEntryCodec.decode(r.value());
                    if (filter.test(entry)) {
                        entries.add(entry);
                    }
                });
            }
            consumer.poll(Duration.ofMillis(300)).forEach(r -> {
                AuditEntry entry = AuditEntryCodec.decode(r.value());
                if (filter.test(entry)) {
                    entries.add(entry);
                }
            });
        }
        return entries;
    }
}
