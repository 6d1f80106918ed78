package dev.warden.api.events;

import static dev.warden.testing.TestAgents.anAgent;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.pipeline.contract.Json;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Lifecycle events really land on {@code warden.events}, keyed by agent id, in order, without secrets. */
class AgentEventsIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform();

    @Test
    void lifecycleChangesArePublishedInOrderKeyedByAgentWithoutSecrets() throws Exception {
        Http http = warden.http();
        String admin = warden.adminToken();
        JsonNode agent = http.post("/agents", admin, anAgent("gus").json()).json();
        String id = agent.get("id").asText();
        String rotatedToken = http.post("/agents/" + id + "/rotate", admin)
                .json()
                .get("token")
                .asText();
        http.patch("/agents/" + id, admin, "{\"name\":\"renamed\"}");
        http.post("/agents/" + id + "/suspend", admin);
        http.post("/agents/" + id + "/resume", admin);
        http.delete("/agents/" + id, admin);

        List<ConsumerRecord<String, byte[]>> records = readAll(6);

        assertThat(records).extracting(ConsumerRecord::key).containsOnly(id);
        List<JsonNode> events = new ArrayList<>();
        for (ConsumerRecord<String, byte[]> record : records) {
            String text = new String(record.value(), StandardCharsets.UTF_8);
            assertThat(text)
                    .doesNotContain(agent.get("token").asText())
                    .doesNotContain(rotatedToken)
                    .doesNotContain("wdn_");
            events.add(Json.mapper().readTree(text));
        }
        assertThat(events)
                .extracting(e -> e.get("type").asText())
                .containsExactly(
                        "agent.created",
                        "agent.rotated",
                        "agent.updated",
                        "agent.suspended",
                        "agent.resumed",
                        "agent.revoked");
        JsonNode created = events.getFirst();
        assertThat(created.get("agentId").asText()).isEqualTo(id);
        assertThat(created.get("userId").asText()).isEqualTo("gus");
        assertThat(created.get("data").get("agent").get("status").asText()).isEqualTo("active");
        assertThat(created.get("data").get("actor").get("kind").asText()).isEqualTo("admin");
        assertThat(events.get(2).get("data").get("changed").toString()).isEqualTo("[\"name\"]");
        assertThat(events.getLast().get("data").get("agent").get("status").asText())
                .isEqualTo("revoked");
    }

    private static List<ConsumerRecord<String, byte[]>> readAll(int expected) {
        Map<String, Object> props = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                warden.infra().kafkaBootstrap(),
                ConsumerConfig.GROUP_ID_CONFIG,
                "test-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest");
        List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(warden.topics().events()));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (records.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
            consumer.poll(Duration.ofMillis(500)).forEach(records::add);
        }
        assertThat(records).hasSize(expected);
        return records;
    }
}
