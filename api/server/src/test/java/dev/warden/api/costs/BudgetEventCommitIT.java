package dev.warden.api.costs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.pipeline.contract.AuditBatch;
import dev.warden.pipeline.contract.Json;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A {@code budget.exceeded} event is committed in the pipeline's loop turn that made it, not at its next commit
 * interval (its open transaction would hold every later event on {@code warden.events} back from committed readers
 * until then): with a 9 s interval, agents crossing their budgets a second apart each see their event within 3 s
 * (D193).
 */
class BudgetEventCommitIT {
    @RegisterExtension
    static final TestPlatform warden =
            new TestPlatform(b -> b.pipelineCommitIntervalMs(9_000).backgroundFetchWaitMs(500));

    @Test
    void eachBudgetExceededEventIsReadableWithoutWaitingForTheCommitInterval() throws Exception {
        Http http = warden.http();
        String admin = warden.adminToken();
        TopicPartition events = new TopicPartition(warden.topics().events(), 0);
        try (KafkaConsumer<String, byte[]> reader = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        warden.infra().kafkaBootstrap(),
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        "read_committed"),
                new StringDeserializer(),
                new ByteArrayDeserializer())) {
            reader.assign(List.of(events));
            reader.seekToEnd(List.of(events));
            reader.position(events);
            for (int i = 1; i <= 3; i++) {
                String id = http.post(
                                "/agents",
                                admin,
                                "{\"ownerId\":\"bea\",\"name\":\"spender-" + i + "\",\"type\":\"service\","
                                        + "\"budget\":{\"maxCostUsd\":1,\"period\":\"day\"}}")
                        .json()
                        .get("id")
                        .asText();
                Thread.sleep(1_000); // the pipeline learns the budget from agent.created
                Http.Response cost = http.post("/agents/" + id + "/costs", admin, "{\"tool\":\"llm\",\"costUsd\":2}");
                assertThat(cost.status()).as(cost.body()).isEqualTo(201);
                assertThat(awaitExceeded(reader, id, Duration.ofSeconds(30)))
                        .as("agent %d's budget.exceeded readable after the crossing cost's answer", i)
                        .isLessThan(Duration.ofSeconds(3));
            }
        }
    }

    /** Polls until the agent's {@code budget.exceeded} is read; how long that took (or {@code limit}). */
    private static Duration awaitExceeded(KafkaConsumer<String, byte[]> reader, String agentId, Duration limit)
            throws Exception {
        long started = System.nanoTime();
        while (System.nanoTime() - started < limit.toNanos()) {
            for (ConsumerRecord<String, byte[]> record : reader.poll(Duration.ofMillis(50))) {
                if (AuditBatch.isBatch(record.headers())) {
                    continue;
                }
                JsonNode event = Json.mapper().readTree(record.value());
                if (event.get("type").asText().equals("budget.exceeded")
                        && event.get("agentId").asText().equals(agentId)) {
                    return Duration.ofNanos(System.nanoTime() - started);
                }
            }
        }
        return limit;
    }
}
