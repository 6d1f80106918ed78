package dev.warden.pipeline.budget;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.pipeline.contract.StreamEventSerdes;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class BudgetTopologyTest {
    private static final Instant DAY1 = Instant.parse("2026-05-10T08:00:00Z");
    private TopologyTestDriver driver;
    private TestInputTopic<String, StreamEvent.Draft> events;

    @BeforeEach
    void setUp() {
        StreamsBuilder builder = new StreamsBuilder();
        BudgetTopology.build(builder, "events", "spend");
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "budget-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        driver = new TopologyTestDriver(builder.build(), props);
        events = driver.createInputTopic(
                "events",
                Serdes.String().serializer(),
                StreamEventSerdes.drafts().serializer());
    }

    @AfterEach
    void tearDown() {
        driver.close();
    }

    private void agent(String id, Map<String, Object> budget) {
        Map<String, Object> view = new java.util.HashMap<>();
        view.put("id", id);
        view.put("budget", budget);
        events.pipeInput(
                id,
                new StreamEvent.Draft(
                        EventType.AGENT_CREATED, DAY1, Map.of("agent", view), Optional.of(id), Optional.of("u")));
    }

    private List<StreamEvent.Draft> cost(String agent, String usd, Instant at) {
        events.pipeInput(
                agent,
                new StreamEvent.Draft(
                        EventType.COST_RECORDED,
                        at,
                        Map.of("cost", Map.of("costUsd", new java.math.BigDecimal(usd))),
                        Optional.of(agent),
                        Optional.of("u")));
        return exceeded();
    }

    private List<StreamEvent.Draft> exceeded() {
        return driver
                .createOutputTopic(
                        "events",
                        Serdes.String().deserializer(),
                        StreamEventSerdes.drafts().deserializer())
                .readValuesToList()
                .stream()
                .filter(e -> e.type() == EventType.BUDGET_EXCEEDED)
                .toList();
    }

    @Test
    void crossingTheDailyBudgetEmitsBudgetExceededOncePerDay() {
        agent("agt_a", Map.of("maxCostUsd", 10, "period", "day"));
        assertThat(cost("agt_a", "6.00", DAY1)).isEmpty();
        List<StreamEvent.Draft> crossed = cost("agt_a", "4.01", DAY1.plusSeconds(60));
        assertThat(crossed).hasSize(1);
        assertThat(crossed.getFirst().data()).containsEntry("period", "day").containsEntry("periodKey", "2026-05-10");
        assertThat(crossed.getFirst().data().get("spentUsd").toString()).isEqualTo("10.01");
        assertThat(cost("agt_a", "50", DAY1.plusSeconds(120)))
                .as("once per period")
                .isEmpty();
        assertThat(cost("agt_a", "11", DAY1.plusSeconds(86_400)))
                .as("a new day")
                .hasSize(1);
    }

    @Test
    void aMonthlyBudgetSumsAcrossDaysAndAgentsWithoutBudgetAreIgnored() {
        agent("agt_m", Map.of("maxCostUsd", 5, "period", "month"));
        agent("agt_free", null);
        assertThat(cost("agt_m", "3", DAY1)).isEmpty();
        assertThat(cost("agt_free", "1000", DAY1)).isEmpty();
        assertThat(cost("agt_m", "3", DAY1.plusSeconds(5 * 86_400))).hasSize(1);
    }

    @Test
    void theSpendTopicHoldsEachBudgetedAgentsSpendInItsCurrentPeriodAndForgetsARemovedBudget() {
        var spend = driver.createOutputTopic(
                "spend", Serdes.String().deserializer(), Serdes.String().deserializer());
        agent("agt_s", Map.of("maxCostUsd", 10, "period", "day"));
        agent("agt_free", null);
        cost("agt_s", "2.50", DAY1);
        cost("agt_free", "1000", DAY1);
        cost("agt_s", "1.25", DAY1.plusSeconds(60));
        cost("agt_s", "4", DAY1.plusSeconds(86_400));
        assertThat(spend.readKeyValuesToList())
                .extracting(kv -> kv.key + "=" + kv.value)
                .containsExactly(
                        "agt_s=0|10|day|2026-05-10",
                        "agt_s=2.50|10|day|2026-05-10",
                        "agt_s=3.75|10|day|2026-05-10",
                        "agt_s=4|10|day|2026-05-11");
        Map<String, Object> view = new java.util.HashMap<>();
        view.put("id", "agt_s");
        view.put("budget", null);
        events.pipeInput(
                "agt_s",
                new StreamEvent.Draft(
                        EventType.AGENT_UPDATED, DAY1, Map.of("agent", view), Optional.of("agt_s"), Optional.of("u")));
        assertThat(spend.readKeyValuesToList()).singleElement().satisfies(kv -> {
            assertThat(kv.key).isEqualTo("agt_s");
            assertThat(kv.value).as("a tombstone").isNull();
        });
    }
}
