package dev.warden.pipeline.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditResult;
import dev.warden.pipeline.contract.AuditSerdes;
import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.pipeline.contract.StreamEventSerdes;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AuditEventTopologyTest {
    private static final Instant T0 = Instant.parse("2026-05-10T08:00:00.123Z");
    private TopologyTestDriver driver;
    private TestInputTopic<String, AuditEntry> audit;
    private TestOutputTopic<String, StreamEvent.Draft> events;

    @BeforeEach
    void setUp() {
        StreamsBuilder builder = new StreamsBuilder();
        AuditEventTopology.build(builder, "audit", "events");
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "audit-mirror-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        driver = new TopologyTestDriver(builder.build(), props);
        audit = driver.createInputTopic("audit", Serdes.String().serializer(), AuditSerdes.entries().serializer());
        events = driver.createOutputTopic("events", Serdes.String().deserializer(), StreamEventSerdes.drafts().deserializer());
    }

    @AfterEach
    void tearDown() {
        driver.close();
    }

    @Test
    void everyEntryBecomesOneAuditEventKeyedByItsAgent() {
        audit.pipeInput("agt_a", new AuditEntry("aud_1", "agt_a", Optional.of("ann"), "agt_a", "read", "mcp:github:issues",
                Map.of("token", "[REDACTED]", "repo", "x"), AuditResult.DENIED, Optional.of("NO_MATCHING_PERMISSION"),
                1.5, 0, T0, Optional.of("10.0.0.1"), Optional.of("curl")));
        audit.pipeInput("agt_b", new AuditEntry("aud_2", "agt_b", Optional.empty(), "admin", "write", "db:x",
                Map.of(), AuditResult.ALLOWED, Optional.empty(), 0.2, 3, T0.plusSeconds(1), Optional.empty(),
                Optional.empty()));

        List<KeyValue<String, StreamEvent.Draft>> out = events.readKeyValuesToList();
        assertThat(out).hasSize(2);
        StreamEvent.Draft first = out.get(0).value;
        assertThat(out.get(0).key).isEqualTo("agt_a");
        assertThat(first.type()).isEqualTo(EventType.AUDIT);
        assertThat(first.timestamp()).isEqualTo(T0);
        assertThat(first.agentId()).contains("agt_a");
        assertThat(first.userId()).contains("ann");
        @SuppressWarnings("unchecked")
        Map<String, Object> entry = (Map<String, Object>) first.data().get("entry");
        assertThat(entry).containsEntry("id", "aud_1").containsEntry("result", "denied")
                .containsEntry("reason", "NO_MATCHING_PERMISSION").containsEntry("timestamp", "2026-05-10T08:00:00.123Z");
        assertThat(entry.get("parameters")).isEqualTo(Map.of("token", "[REDACTED]", "repo", "x"));
        assertThat(out.get(1).value.userId()).isEmpty();
        assertThat(out.get(1).key).isEqualTo("agt_b");
    }
}
