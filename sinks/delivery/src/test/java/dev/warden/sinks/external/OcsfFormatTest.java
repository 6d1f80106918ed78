package dev.warden.sinks.external;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditResult;
import dev.warden.pipeline.contract.Json;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code format: ocsf} on each HTTP sink: what reaches a receiver is, for every entry, an OCSF event the pinned
 * schema accepts, carrying the audit id as {@code metadata.uid} (HEC's {@code event}, the CloudEvent's {@code data}
 * with an OCSF {@code type} and {@code dataschema}, the OTLP log record's body).
 */
class OcsfFormatTest {
    static final OcsfSchema SCHEMA = OcsfSchema.load();
    final TestReceiver receiver = TestReceiver.start();

    @AfterEach
    void stop() {
        receiver.close();
    }

    static List<AuditEntry> batch() {
        return List.of(
                OcsfEncoderTest.decision("read", AuditResult.ALLOWED, null, null),
                OcsfEncoderTest.decision("refund", AuditResult.DENIED, "NO_MATCHING_PERMISSION", null),
                OcsfEncoderTest.administrative(
                        "agent.revoke",
                        "usr_owner",
                        "usr_owner",
                        Map.of("target", Map.of("kind", "agent", "id", "agt_7"))));
    }

    void send(AuditSinkSpec.Type type, String secret, Map<String, String> options) {
        AuditSinkSpec.Builder spec = AuditSinkSpec.builder(type, receiver.url()).option("format", "ocsf");
        if (secret != null) {
            spec.secret(secret);
        }
        options.forEach(spec::option);
        try (AuditSink sink =
                AuditSinks.build(List.of(spec.build()), Clock.systemUTC()).getFirst()) {
            sink.send(batch());
        }
    }

    static void allValid(List<JsonNode> events) {
        assertThat(events).hasSize(3);
        for (JsonNode event : events) {
            assertThat(SCHEMA.problems(event)).as(event.toPrettyString()).isEmpty();
        }
        assertThat(events.stream()
                        .map(e -> e.get("metadata").get("uid").asText())
                        .toList())
                .containsExactlyElementsOf(batch().stream().map(AuditEntry::id).toList());
        assertThat(events.stream().map(e -> e.get("class_uid").asInt()).toList())
                .containsExactly(6003, 6003, 3004);
    }

    @Test
    void splunkHecEventsAreOcsf() throws IOException {
        send(AuditSinkSpec.Type.SPLUNK_HEC, "token", Map.of());
        List<JsonNode> events = new ArrayList<>();
        try (MappingIterator<JsonNode> it = Json.mapper()
                .readerFor(JsonNode.class)
                .with(JsonParser.Feature.AUTO_CLOSE_SOURCE)
                .readValues(receiver.requests().getFirst().bodyText())) {
            while (it.hasNext()) {
                JsonNode hec = it.next();
                assertThat(hec.get("sourcetype").asText()).isEqualTo("ocsf:warden");
                events.add(hec.get("event"));
            }
        }
        allValid(events);
    }

    @Test
    void cloudEventsDataIsOcsfWithItsClassAsTypeAndSchema() throws IOException {
        send(AuditSinkSpec.Type.CLOUDEVENTS, "an hmac secret of sufficient length", Map.of("mode", "batch"));
        JsonNode batch = Json.mapper().readTree(receiver.requests().getFirst().bodyText());
        List<JsonNode> events = new ArrayList<>();
        batch.forEach(ce -> {
            assertThat(ce.get("type").asText())
                    .isEqualTo("dev.warden.audit.ocsf."
                            + ce.get("data").get("class_uid").asInt());
            assertThat(ce.get("dataschema").asText()).startsWith("https://schema.ocsf.io/1.8.0/classes/");
            events.add(ce.get("data"));
        });
        allValid(events);
    }

    @Test
    void otlpLogBodiesAreOcsfJson() throws IOException {
        send(AuditSinkSpec.Type.OTLP_LOGS, null, Map.of("encoding", "json"));
        JsonNode request = Json.mapper().readTree(receiver.requests().getFirst().bodyText());
        List<JsonNode> events = new ArrayList<>();
        for (JsonNode log : request.at("/resourceLogs/0/scopeLogs/0/logRecords")) {
            events.add(Json.mapper().readTree(log.at("/body/stringValue").asText()));
        }
        allValid(events);
    }
}
