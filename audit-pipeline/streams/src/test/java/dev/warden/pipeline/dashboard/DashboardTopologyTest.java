package dev.warden.pipeline.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditResult;
import dev.warden.pipeline.contract.AuditSerdes;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DashboardTopologyTest {
    private static final Instant T0 = Instant.parse("2026-03-01T10:15:00Z");
    private TopologyTestDriver driver;
    private TestInputTopic<String, AuditEntry> audit;
    private TestOutputTopic<String, DecisionCounts> hourly;
    private TestOutputTopic<String, DecisionCounts> totals;

    @BeforeEach
    void setUp() {
        StreamsBuilder builder = new StreamsBuilder();
        DashboardTopology.build(builder, "audit", "hourly", "totals");
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "dashboard-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        driver = new TopologyTestDriver(builder.build(), props);
        audit = driver.createInputTopic(
                "audit", Serdes.String().serializer(), AuditSerdes.entries().serializer());
        hourly = driver.createOutputTopic(
                "hourly", Serdes.String().deserializer(), DecisionCounts.serde().deserializer());
        totals = driver.createOutputTopic(
                "totals", Serdes.String().deserializer(), DecisionCounts.serde().deserializer());
    }

    @AfterEach
    void tearDown() {
        driver.close();
    }

    private void decide(String agent, AuditResult result, Instant at) {
        audit.pipeInput(
                agent,
                new AuditEntry(
                        "aud_" + at.toEpochMilli() + result,
                        agent,
                        Optional.of("u"),
                        "admin",
                        "read",
                        "a:b",
                        Map.of(),
                        result,
                        Optional.empty(),
                        1.0,
                        0,
                        at,
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty()));
    }

    @Test
    void countsCallsAndDenialsPerAgentPerClockHourAndInTotal() {
        decide("agt_a", AuditResult.ALLOWED, T0);
        decide("agt_a", AuditResult.DENIED, T0.plusSeconds(60));
        decide("agt_a", AuditResult.RATE_LIMITED, T0.plusSeconds(3600));
        decide("agt_b", AuditResult.ALLOWED, T0);

        Map<String, DecisionCounts> hours = hourly.readKeyValuesToMap();
        long hour = T0.getEpochSecond() / 3600;
        assertThat(hours)
                .containsEntry(hour + "|agt_a", new DecisionCounts(2, 1))
                .containsEntry((hour + 1) + "|agt_a", new DecisionCounts(1, 1))
                .containsEntry(hour + "|agt_b", new DecisionCounts(1, 0));
        assertThat(totals.readKeyValuesToMap())
                .containsEntry("agt_a", new DecisionCounts(3, 2))
                .containsEntry("agt_b", new DecisionCounts(1, 0));
    }

    @Test
    void undecodableRecordsAreSkipped() {
        driver.createInputTopic(
                        "audit", Serdes.String().serializer(), Serdes.String().serializer())
                .pipeInput("agt_a", "{not json");
        decide("agt_a", AuditResult.ALLOWED, T0);
        assertThat(totals.readKeyValuesToMap()).containsEntry("agt_a", new DecisionCounts(1, 0));
    }
}
