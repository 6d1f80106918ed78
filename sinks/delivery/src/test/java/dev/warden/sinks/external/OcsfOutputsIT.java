package dev.warden.sinks.external;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.Json;
import dev.warden.testing.SharedInfra;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * OCSF for teams that ingest files or topics directly: the {@code file} sink appends one OCSF event per line (NDJSON,
 * forced to disk per batch) and the {@code kafka-topic} sink publishes one per record, keyed by audit id, to a real
 * broker; every event is valid against the pinned schema.
 */
class OcsfOutputsIT {
    static SharedInfra infra;
    static final OcsfSchema SCHEMA = OcsfSchema.load();

    @RegisterExtension
    static final BeforeAllCallback SHARED = context -> infra = SharedInfra.get(context);

    @TempDir
    Path dir;

    static void valid(List<JsonNode> events, List<AuditEntry> batch) {
        assertThat(events).hasSize(batch.size());
        events.forEach(
                e -> assertThat(SCHEMA.problems(e)).as(e.toPrettyString()).isEmpty());
        assertThat(events.stream()
                        .map(e -> e.get("metadata").get("uid").asText())
                        .toList())
                .containsExactlyElementsOf(batch.stream().map(AuditEntry::id).toList());
    }

    @Test
    void theFileSinkAppendsOneOcsfEventPerLine() throws Exception {
        Path file = dir.resolve("audit/ocsf.ndjson");
        AuditSinkSpec spec =
                AuditSinkSpec.builder(AuditSinkSpec.Type.FILE, file.toUri()).build();
        try (AuditSink sink = AuditSinks.build(List.of(spec), Clock.systemUTC()).getFirst()) {
            sink.send(OcsfFormatTest.batch());
            sink.send(OcsfFormatTest.batch().subList(0, 1));
        }
        List<JsonNode> events = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            events.add(Json.mapper().readTree(line));
        }
        List<AuditEntry> expected = new ArrayList<>(OcsfFormatTest.batch());
        expected.add(OcsfFormatTest.batch().getFirst());
        valid(events, expected);
        assertThatThrownBy(() -> AuditSinks.build(
                        List.of(AuditSinkSpec.builder(AuditSinkSpec.Type.FILE, URI.create("https://x/y"))
                                .build()),
                        Clock.systemUTC()))
                .hasMessageContaining("file:///");
    }

    @Test
    void theKafkaTopicSinkPublishesOneOcsfEventPerRecordKeyedByAuditId() throws Exception {
        String topic = "ocsf-" + UUID.randomUUID();
        // The topic is the team's: it exists before the sink publishes (the broker here creates none on its own)
        try (org.apache.kafka.clients.admin.Admin admin =
                org.apache.kafka.clients.admin.Admin.create(Map.of("bootstrap.servers", infra.kafkaBootstrap()))) {
            admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(topic, 1, (short) 1)))
                    .all()
                    .get();
        }
        URI url = URI.create("kafka://" + infra.kafkaBootstrap().split(",")[0] + "/" + topic);
        AuditSinkSpec spec =
                AuditSinkSpec.builder(AuditSinkSpec.Type.KAFKA_TOPIC, url).build();
        try (AuditSink sink = AuditSinks.build(List.of(spec), Clock.systemUTC()).getFirst()) {
            sink.send(OcsfFormatTest.batch());
        }
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "it-" + topic);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<JsonNode> events = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer =
                new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (events.size() < 3 && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    keys.add(r.key());
                    events.add(Json.mapper().readTree(r.value()));
                }
            }
        }
        valid(events, OcsfFormatTest.batch());
        assertThat(keys)
                .containsExactlyElementsOf(
                        OcsfFormatTest.batch().stream().map(AuditEntry::id).toList());
        assertThatThrownBy(() -> AuditSinks.build(
                        List.of(AuditSinkSpec.builder(AuditSinkSpec.Type.KAFKA_TOPIC, URI.create("kafka://host/"))
                                .build()),
                        Clock.systemUTC()))
                .hasMessageContaining("kafka://host:port/topic");
    }
}
