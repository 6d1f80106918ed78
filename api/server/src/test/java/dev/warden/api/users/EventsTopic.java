package dev.warden.api.users;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.pipeline.contract.AuditBatch;
import dev.warden.pipeline.contract.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads a test platform's {@code warden.events} topic from the start. */
public final class EventsTopic {
    /** One event as published: its key and raw JSON text. */
    public record Event(String key, String text, JsonNode json) {
        public String type() {
            return json.get("type").asText();
        }
    }

    private EventsTopic() {}

    /** Every event on {@code topic} until {@code expected} of them match {@code wanted} (30 s at most). */
    public static List<Event> await(String bootstrap, String topic, Predicate<Event> wanted, int expected) {
        Map<String, Object> props = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG,
                "test-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest");
        List<Event> matching = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (matching.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    if (AuditBatch.isBatch(record.headers())) {
                        continue; // audit events, binary (docs/events.md)
                    }
                    Event event = parse(record);
                    if (wanted.test(event)) {
                        matching.add(event);
                    }
                }
            }
        }
        assertThat(matching).as("events matching the filter").hasSizeGreaterThanOrEqualTo(expected);
        return matching;
    }

    /** The offset the next event on {@code topic} will have (the topic has one partition, docs/events.md). */
    public static long end(String bootstrap, String topic) {
        try (KafkaConsumer<String, byte[]> consumer = reader(bootstrap)) {
            TopicPartition partition = new TopicPartition(topic, 0);
            return consumer.endOffsets(List.of(partition)).get(partition);
        }
    }

    /**
     * Every event on {@code topic} from offset {@code from} up to the topic's end as it is now, audit batches left
     * out: what a reader can see at this moment, without waiting for anything still to come.
     */
    public static List<Event> since(String bootstrap, String topic, long from) {
        List<Event> events = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = reader(bootstrap)) {
            TopicPartition partition = new TopicPartition(topic, 0);
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            consumer.assign(List.of(partition));
            consumer.seek(partition, from);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (consumer.position(partition) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    if (record.offset() < end && !AuditBatch.isBatch(record.headers())) {
                        events.add(parse(record));
                    }
                }
            }
            assertThat(consumer.position(partition)).as("read up to the end").isGreaterThanOrEqualTo(end);
        }
        return events;
    }

    private static KafkaConsumer<String, byte[]> reader(String bootstrap) {
        return new KafkaConsumer<>(
                Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                new StringDeserializer(),
                new ByteArrayDeserializer());
    }

    private static Event parse(ConsumerRecord<String, byte[]> record) {
        String text = new String(record.value(), StandardCharsets.UTF_8);
        try {
            return new Event(record.key(), text, Json.mapper().readTree(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
