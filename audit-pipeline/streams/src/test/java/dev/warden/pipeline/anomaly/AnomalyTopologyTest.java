package dev.warden.pipeline.anomaly;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditResult;
import dev.warden.pipeline.contract.AuditSerdes;
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
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AnomalyTopologyTest {
    private static final Instant T0 = Instant.parse("2026-05-10T08:00:00Z");
    private TopologyTestDriver driver;
    private TestInputTopic<String, AuditEntry> audit;
    private TestOutputTopic<String, StreamEvent.Draft> events;
    private int seq;

    @BeforeEach
    void setUp() {
        StreamsBuilder builder = new StreamsBuilder();
        AnomalyTopology.build(builder, "audit", "events", AnomalyRules.defaults());
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "anomaly-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        driver = new TopologyTestDriver(builder.build(), props);
        audit = driver.createInputTopic(
                "audit", Serdes.String().serializer(), AuditSerdes.entries().serializer());
        events = driver.createOutputTopic(
                "events",
                Serdes.String().deserializer(),
                StreamEventSerdes.drafts().deserializer());
    }

    @AfterEach
    void tearDown() {
        driver.close();
    }

    private void calls(String agent, int minute, int n, AuditResult result) {
        for (int i = 0; i < n; i++) {
            Instant at = T0.plusSeconds(minute * 60L + (i % 50));
            audit.pipeInput(
                    agent,
                    new AuditEntry(
                            "aud_" + (++seq),
                            agent,
                            Optional.of("u"),
                            "admin",
                            "read",
                            "a:b",
                            Map.of(),
                            result,
                            Optional.empty(),
                            1,
                            0,
                            at,
                            Optional.empty(),
                            Optional.empty(),
                            Optional.empty(),
                            Optional.empty()));
        }
    }

    private List<StreamEvent.Draft> anomalies() {
        return events.readValuesToList();
    }

    @Test
    void aMinuteFarAboveTheAgentsOwnBaselineIsACallRateSpikeReportedOnce() {
        for (int minute = 0; minute < 10; minute++) {
            calls("agt_a", minute, 4, AuditResult.ALLOWED);
        }
        assertThat(anomalies()).isEmpty();
        calls("agt_a", 10, 80, AuditResult.ALLOWED);
        List<StreamEvent.Draft> found = anomalies();
        assertThat(found).hasSize(1);
        assertThat(found.getFirst().data())
                .containsEntry("kind", "call_rate_spike")
                .containsEntry("agentId", "agt_a")
                .containsKey("evidence");
    }

    @Test
    void aBusyAgentAtItsUsualRateIsNotASpike() {
        for (int minute = 0; minute < 30; minute++) {
            calls("agt_busy", minute, 60, AuditResult.ALLOWED);
        }
        assertThat(anomalies()).isEmpty();
    }

    @Test
    void manyDenialsInOneMinuteAreADenialBurst() {
        calls("agt_d", 0, 5, AuditResult.ALLOWED);
        calls("agt_d", 0, 12, AuditResult.DENIED);
        List<StreamEvent.Draft> found = anomalies();
        assertThat(found).extracting(e -> e.data().get("kind")).containsExactly("denial_burst");
        assertThat(found.getFirst().data()).containsEntry("severity", "medium");
    }
}
