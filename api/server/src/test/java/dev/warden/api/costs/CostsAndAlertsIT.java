package dev.warden.api.costs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.pipeline.contract.AuditBatch;
import dev.warden.pipeline.contract.Json;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Costs, budgets and anomalies end to end: API → warden.events / warden.audit → pipeline → warden.events. */
class CostsAndAlertsIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform();

    @Test
    void costsAreRecordedAndCrossingTheBudgetEmitsBudgetExceededOnce() throws Exception {
        Http http = warden.http();
        String admin = warden.adminToken();
        Http.Response created = http.post(
                "/agents",
                admin,
                "{\"ownerId\":\"bea\",\"name\":\"spender\",\"type\":\"service\","
                        + "\"budget\":{\"maxCostUsd\":1.5,\"period\":\"day\"}}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.json().get("budget").get("period").asText()).isEqualTo("day");
        String id = created.json().get("id").asText();
        String agentToken = created.json().get("token").asText();

        Http.Response cost = http.post(
                "/agents/" + id + "/costs",
                agentToken,
                "{\"tool\":\"llm\",\"inputTokens\":1000,\"outputTokens\":200,\"costUsd\":1.0}");
        assertThat(cost.status()).as(cost.body()).isEqualTo(201);
        assertThat(cost.json().get("id").asText()).startsWith("cst_");
        http.post("/agents/" + id + "/costs", admin, "{\"tool\":\"llm\",\"costUsd\":0.75}");
        http.post("/agents/" + id + "/costs", admin, "{\"tool\":\"llm\",\"costUsd\":3}");

        List<JsonNode> exceeded = events(
                e -> e.get("type").asText().equals("budget.exceeded")
                        && e.get("agentId").asText().equals(id),
                1);
        assertThat(exceeded).hasSize(1);
        assertThat(exceeded.getFirst().get("data").get("spentUsd").asDouble()).isEqualTo(1.75);
        assertThat(events(
                        e -> e.get("type").asText().equals("cost.recorded")
                                && e.get("agentId").asText().equals(id),
                        3))
                .hasSize(3);

        Http.Response bad = http.post("/agents/" + id + "/costs", admin, "{\"tool\":\"\",\"costUsd\":-1,\"x\":1}");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.json().get("errors").findValuesAsText("field"))
                .containsExactlyInAnyOrder("tool", "costUsd", "x");
    }

    @Test
    void aBurstOfDenialsIsDetectedAsAnAnomaly() throws Exception {
        Http http = warden.http();
        String admin = warden.adminToken();
        String id = http.post("/agents", admin, "{\"ownerId\":\"bea\",\"name\":\"prober\",\"type\":\"autonomous\"}")
                .json()
                .get("id")
                .asText();
        for (int i = 0; i < 12; i++) {
            http.post(
                    "/authorize", admin, "{\"agentId\":\"" + id + "\",\"action\":\"delete\",\"resource\":\"db:prod\"}");
        }
        List<JsonNode> anomalies = events(
                e -> e.get("type").asText().equals("anomaly.detected")
                        && e.get("agentId").asText().equals(id),
                1);
        assertThat(anomalies).hasSize(1);
        assertThat(anomalies.getFirst().get("data").get("kind").asText()).isEqualTo("denial_burst");
    }

    private static List<JsonNode> events(Predicate<JsonNode> filter, int expected) throws Exception {
        Map<String, Object> props = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                warden.infra().kafkaBootstrap(),
                ConsumerConfig.GROUP_ID_CONFIG,
                "events-reader-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed");
        List<JsonNode> found = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(warden.topics().events()));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (found.size() < expected && System.nanoTime() < deadline) {
                for (var record : consumer.poll(Duration.ofMillis(200))) {
                    if (AuditBatch.isBatch(record.headers())) {
                        continue; // audit events, binary (docs/events.md)
                    }
                    JsonNode event = Json.mapper().readTree(record.value());
                    if (filter.test(event)) {
                        found.add(event);
                    }
                }
            }
            for (var record : consumer.poll(Duration.ofSeconds(2))) {
                if (AuditBatch.isBatch(record.headers())) {
                    continue;
                }
                JsonNode event = Json.mapper().readTree(record.value());
                if (filter.test(event)) {
                    found.add(event);
                }
            }
        }
        return found;
    }
}
