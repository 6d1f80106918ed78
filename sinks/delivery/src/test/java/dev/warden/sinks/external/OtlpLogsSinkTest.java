package dev.warden.sinks.external;

import static dev.warden.sinks.external.ProtoReader.all;
import static dev.warden.sinks.external.ProtoReader.one;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.Json;
import dev.warden.sinks.external.ProtoReader.Field;
import java.io.IOException;
import java.net.URI;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OtlpLogsSinkTest extends AuditSinkBehaviour {
    private static final String AUTHORIZATION = "Bearer otlp-secret-token";
    private static final Instant OBSERVED = Instant.parse("2026-01-02T03:04:06.000000789Z");
    private static final InstantSource CLOCK = InstantSource.fixed(OBSERVED);
    private static final long DECIDED_NANOS = 1_767_323_045_123_000_000L;
    private static final long OBSERVED_NANOS = 1_767_323_046_000_000_789L;

    // Wire types (protobuf encoding guide).
    private static final int VARINT = 0;
    private static final int I64 = 1;
    private static final int LEN = 2;

    @Override
    protected AuditSink newSink(URI receiverUrl, HttpOptions http) {
        return new OtlpLogsSink(
                OtlpLogsConfig.builder(receiverUrl)
                        .header("Authorization", AUTHORIZATION)
                        .http(http)
                        .build(),
                CLOCK);
    }

    @Override
    protected String secret() {
        return AUTHORIZATION;
    }

    @Override
    protected String expectedPath() {
        return "/v1/logs";
    }

    private void sendJson() {
        OtlpLogsConfig config = OtlpLogsConfig.builder(receiver.url())
                .encoding(OtlpLogsConfig.Encoding.JSON)
                .build();
        try (AuditSink sink = new OtlpLogsSink(config, CLOCK)) {
            sink.send(List.of(TestAudit.anEntry(), TestAudit.aDeniedEntry()));
        }
    }

    @Test
    void sendSendsConfiguredHeadersSuchAsAuthorization() {
        try (AuditSink sink = newSink()) {
            sink.send(List.of(TestAudit.anEntry()));
        }
        assertThat(receiver.requests().get(0).header("Authorization")).isEqualTo(AUTHORIZATION);
    }

    @Test
    void jsonEncodingCarriesServiceNameScopeAndOneRecordPerEntry() throws IOException {
        sendJson();
        TestReceiver.Request request = receiver.requests().get(0);
        assertThat(request.header("Content-Type")).isEqualTo("application/json");

        JsonNode resourceLogs = Json.mapper().readTree(request.body()).get("resourceLogs");
        assertThat(resourceLogs).hasSize(1);
        JsonNode resourceAttribute =
                resourceLogs.get(0).get("resource").get("attributes").get(0);
        assertThat(resourceAttribute.get("key").asText()).isEqualTo("service.name");
        assertThat(resourceAttribute.get("value").get("stringValue").asText()).isEqualTo("warden");
        JsonNode scopeLogs = resourceLogs.get(0).get("scopeLogs").get(0);
        assertThat(scopeLogs.get("scope").get("name").asText()).isEqualTo("dev.warden.audit");
        assertThat(scopeLogs.get("logRecords")).hasSize(2);
    }

    @Test
    void jsonEncodingWritesTimesAsDecimalStringsAndSeverityByResult() throws IOException {
        sendJson();
        JsonNode records = logRecords(receiver.requests().get(0));
        JsonNode allowed = records.get(0);
        assertThat(allowed.get("timeUnixNano").isTextual()).isTrue();
        assertThat(allowed.get("timeUnixNano").asText()).isEqualTo(Long.toString(DECIDED_NANOS));
        assertThat(allowed.get("observedTimeUnixNano").asText()).isEqualTo(Long.toString(OBSERVED_NANOS));
        assertThat(allowed.get("severityNumber").asInt()).isEqualTo(9);
        assertThat(allowed.get("severityText").asText()).isEqualTo("INFO");
        assertThat(allowed.get("body").get("stringValue").asText()).isEqualTo("read mcp:github:repo allowed");

        JsonNode denied = records.get(1);
        assertThat(denied.get("severityNumber").asInt()).isEqualTo(13);
        assertThat(denied.get("severityText").asText()).isEqualTo("WARN");
    }

    @Test
    void jsonEncodingHasOneTypedAttributePerAuditFieldAndNoneForAbsentOnes() throws IOException {
        sendJson();
        JsonNode records = logRecords(receiver.requests().get(0));
        Map<String, JsonNode> allowed = attributes(records.get(0));
        assertThat(allowed.keySet())
                .containsExactlyInAnyOrder(
                        "warden.audit.id",
                        "warden.agent.id",
                        "warden.user.id",
                        "warden.caller.id",
                        "warden.action",
                        "warden.resource",
                        "warden.result",
                        "warden.duration_ms",
                        "warden.tokens_cost",
                        "warden.parameters",
                        "client.address",
                        "user_agent.original");
        assertThat(allowed.get("warden.audit.id").get("stringValue").asText()).isEqualTo("aud_0001");
        assertThat(allowed.get("warden.user.id").get("stringValue").asText()).isEqualTo("alice");
        assertThat(allowed.get("warden.duration_ms").get("doubleValue").asDouble())
                .isEqualTo(12.5);
        assertThat(allowed.get("warden.tokens_cost").get("intValue").asText()).isEqualTo("3");
        assertThat(Json.mapper()
                        .readTree(allowed.get("warden.parameters")
                                .get("stringValue")
                                .asText()))
                .isEqualTo(Json.mapper().readTree("{\"repo\":\"warden\",\"limit\":10}"));
        assertThat(allowed.get("client.address").get("stringValue").asText()).isEqualTo("203.0.113.7");
        assertThat(allowed.get("user_agent.original").get("stringValue").asText())
                .isEqualTo("triage-bot/1.0");

        Map<String, JsonNode> denied = attributes(records.get(1));
        assertThat(denied).doesNotContainKeys("warden.user.id", "client.address", "user_agent.original");
        assertThat(denied.get("warden.reason").get("stringValue").asText()).isEqualTo("no_permission");
        assertThat(denied.get("warden.result").get("stringValue").asText()).isEqualTo("denied");
        assertThat(denied.get("warden.duration_ms").get("doubleValue").asDouble())
                .isZero();
    }

    @Test
    void aDecisionThroughDelegationsCarriesItsChain() throws IOException {
        AuditEntry e = TestAudit.anEntry();
        AuditEntry chained = new AuditEntry(
                e.id(),
                e.agentId(),
                e.userId(),
                e.callerId(),
                e.action(),
                e.resource(),
                e.parameters(),
                e.result(),
                e.reason(),
                e.durationMs(),
                e.tokensCost(),
                e.timestamp(),
                e.ip(),
                e.userAgent(),
                e.callerIp(),
                e.reasonDetail(),
                List.of("dlg_bc", "dlg_ab"));
        OtlpLogsConfig config = OtlpLogsConfig.builder(receiver.url())
                .encoding(OtlpLogsConfig.Encoding.JSON)
                .build();
        try (AuditSink sink = new OtlpLogsSink(config, CLOCK)) {
            sink.send(List.of(chained));
        }
        Map<String, JsonNode> attributes =
                attributes(logRecords(receiver.requests().get(0)).get(0));
        assertThat(attributes.get("warden.delegation_chain").get("stringValue").asText())
                .isEqualTo("dlg_bc,dlg_ab");
    }

    @Test
    void protobufEncodingUsesTheOtlpFieldNumbersAndWireTypes() {
        try (AuditSink sink = newSink()) {
            sink.send(List.of(TestAudit.anEntry(), TestAudit.aDeniedEntry()));
        }
        TestReceiver.Request request = receiver.requests().get(0);
        assertThat(request.header("Content-Type")).isEqualTo("application/x-protobuf");

        // ExportLogsServiceRequest.resource_logs = 1
        List<Field> resourceLogs = one(ProtoReader.parse(request.body()), 1).message();
        // ResourceLogs.resource = 1 -> Resource.attributes = 1 -> KeyValue {key = 1, value = 2 -> string_value = 1}
        List<Field> serviceName = one(one(resourceLogs, 1).message(), 1).message();
        assertThat(one(serviceName, 1).string()).isEqualTo("service.name");
        assertThat(one(one(serviceName, 2).message(), 1).string()).isEqualTo("warden");
        // ResourceLogs.scope_logs = 2 -> ScopeLogs.scope = 1 -> InstrumentationScope.name = 1
        List<Field> scopeLogs = one(resourceLogs, 2).message();
        assertThat(one(one(scopeLogs, 1).message(), 1).string()).isEqualTo("dev.warden.audit");
        // ScopeLogs.log_records = 2
        List<Field> records = all(scopeLogs, 2);
        assertThat(records).hasSize(2);

        List<Field> allowed = records.get(0).message();
        assertField(one(allowed, 1), I64, DECIDED_NANOS); // time_unix_nano, fixed64
        assertField(one(allowed, 2), VARINT, 9); // severity_number
        assertThat(one(allowed, 3).string()).isEqualTo("INFO"); // severity_text
        assertThat(one(one(allowed, 5).message(), 1).string()) // body.string_value
                .isEqualTo("read mcp:github:repo allowed");
        assertField(one(allowed, 11), I64, OBSERVED_NANOS); // observed_time_unix_nano, fixed64
        assertThat(all(allowed, 6)).hasSize(12); // attributes
        assertThat(allowed).extracting(Field::number).containsOnly(1, 2, 3, 5, 6, 11);

        Map<String, List<Field>> attributes = protoAttributes(allowed);
        assertThat(one(attributes.get("warden.agent.id"), 1).string()).isEqualTo("agt_triage");
        Field duration = one(attributes.get("warden.duration_ms"), 4); // double_value, fixed64
        assertThat(duration.wireType()).isEqualTo(I64);
        assertThat(Double.longBitsToDouble(duration.value())).isEqualTo(12.5);
        assertField(one(attributes.get("warden.tokens_cost"), 3), VARINT, 3); // int_value

        assertField(one(records.get(1).message(), 2), VARINT, 13);
    }

    @Test
    void protobufEncodingWritesZeroValuedAttributesBecauseOneofPresenceSelectsTheKind() {
        try (AuditSink sink = newSink()) {
            sink.send(List.of(TestAudit.aDeniedEntry()));
        }
        List<Field> resourceLogs =
                one(ProtoReader.parse(receiver.requests().get(0).body()), 1).message();
        List<Field> record = one(one(resourceLogs, 2).message(), 2).message();
        Map<String, List<Field>> attributes = protoAttributes(record);
        assertField(one(attributes.get("warden.duration_ms"), 4), I64, 0);
        assertField(one(attributes.get("warden.tokens_cost"), 3), VARINT, 0);
        assertThat(one(attributes.get("warden.reason"), 1).wireType()).isEqualTo(LEN);
    }

    @Test
    void serviceNameIsConfigurable() throws IOException {
        OtlpLogsConfig config = OtlpLogsConfig.builder(receiver.url())
                .encoding(OtlpLogsConfig.Encoding.JSON)
                .serviceName("warden-eu")
                .build();
        try (AuditSink sink = new OtlpLogsSink(config, CLOCK)) {
            sink.send(List.of(TestAudit.anEntry()));
        }
        JsonNode attribute =
                Json.mapper().readTree(receiver.requests().get(0).body()).at("/resourceLogs/0/resource/attributes/0");
        assertThat(attribute.at("/value/stringValue").asText()).isEqualTo("warden-eu");
    }

    private static void assertField(Field field, int wireType, long value) {
        assertThat(field.wireType()).as("wire type of field %d", field.number()).isEqualTo(wireType);
        assertThat(field.value()).as("value of field %d", field.number()).isEqualTo(value);
    }

    private static JsonNode logRecords(TestReceiver.Request request) throws IOException {
        return Json.mapper().readTree(request.body()).at("/resourceLogs/0/scopeLogs/0/logRecords");
    }

    private static Map<String, JsonNode> attributes(JsonNode record) {
        Map<String, JsonNode> out = new HashMap<>();
        record.get("attributes").forEach(a -> out.put(a.get("key").asText(), a.get("value")));
        return out;
    }

    /** LogRecord.attributes (6) as key -> the AnyValue's fields. */
    private static Map<String, List<Field>> protoAttributes(List<Field> record) {
        Map<String, List<Field>> out = new HashMap<>();
        for (Field kv : all(record, 6)) {
            List<Field> keyValue = kv.message();
            out.put(one(keyValue, 1).string(), one(keyValue, 2).message());
        }
        return out;
    }
}
