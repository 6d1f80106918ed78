package dev.warden.sinks.external;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditResult;
import dev.warden.pipeline.contract.Json;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Encodes audit entries as one OTLP {@code ExportLogsServiceRequest} (opentelemetry-proto
 * {@code collector/logs/v1/logs_service.proto}): one {@code ResourceLogs} carrying {@code service.name}, one
 * {@code ScopeLogs} with scope {@value #SCOPE}, one {@code LogRecord} per entry. Binary protobuf and OTLP/JSON
 * (lowerCamelCase keys, 64-bit integers as decimal strings, enums as numbers) carry the same content.
 * Stateless and thread-safe.
 */
final class OtlpLogsEncoder {
    /** The instrumentation scope name of every record. */
    static final String SCOPE = "dev.warden.audit";

    // Field numbers, from opentelemetry-proto (collector/logs/v1/logs_service.proto, logs/v1/logs.proto,
    // resource/v1/resource.proto, common/v1/common.proto).
    static final int REQUEST_RESOURCE_LOGS = 1;
    static final int RESOURCE_LOGS_RESOURCE = 1;
    static final int RESOURCE_LOGS_SCOPE_LOGS = 2;
    static final int RESOURCE_ATTRIBUTES = 1;
    static final int SCOPE_LOGS_SCOPE = 1;
    static final int SCOPE_LOGS_LOG_RECORDS = 2;
    static final int SCOPE_NAME = 1;
    static final int LOG_TIME_UNIX_NANO = 1; // fixed64
    static final int LOG_SEVERITY_NUMBER = 2; // enum SeverityNumber, varint
    static final int LOG_SEVERITY_TEXT = 3;
    static final int LOG_BODY = 5; // AnyValue
    static final int LOG_ATTRIBUTES = 6; // repeated KeyValue
    static final int LOG_OBSERVED_TIME_UNIX_NANO = 11; // fixed64
    static final int KEY_VALUE_KEY = 1;
    static final int KEY_VALUE_VALUE = 2;
    static final int ANY_STRING = 1;
    static final int ANY_INT = 3; // int64, varint
    static final int ANY_DOUBLE = 4; // double, fixed64

    /** SeverityNumber INFO, for allowed calls. */
    static final int SEVERITY_INFO = 9;
    /** SeverityNumber WARN, for denied and rate-limited calls. */
    static final int SEVERITY_WARN = 13;

    private final String serviceName;

    OtlpLogsEncoder(String serviceName) {
        this.serviceName = serviceName;
    }

    /** An attribute value: the three AnyValue kinds the audit fields need. */
    sealed interface Value {
        record Str(String value) implements Value {}

        record Int(long value) implements Value {}

        record Dbl(double value) implements Value {}
    }

    /** One KeyValue. */
    record Attribute(String key, Value value) {}

    /** The content of one LogRecord. */
    record LogRecord(
            long timeUnixNano,
            long observedTimeUnixNano,
            int severityNumber,
            String severityText,
            String body,
            List<Attribute> attributes) {}

    /** The log record of {@code entry}, observed at {@code observed}. */
    static LogRecord record(AuditEntry entry, Instant observed) {
        return record(entry, observed, AuditFormat.WARDEN);
    }

    /**
     * The log record of {@code entry}; with {@link AuditFormat#OCSF} its body is the OCSF event as JSON text (the
     * attributes stay, so a collector routes on them either way).
     */
    static LogRecord record(AuditEntry entry, Instant observed, AuditFormat format) {
        boolean allowed = entry.result() == AuditResult.ALLOWED;
        String body = format == AuditFormat.OCSF
                ? format.encode(entry).toString()
                : entry.action() + " " + entry.resource() + " " + entry.result().wireName();
        return new LogRecord(
                unixNanos(entry.timestamp()),
                unixNanos(observed),
                allowed ? SEVERITY_INFO : SEVERITY_WARN,
                allowed ? "INFO" : "WARN",
                body,
                attributes(entry));
    }

    /** One attribute per audit field; absent optional fields have none (OTel omits rather than empties). */
    static List<Attribute> attributes(AuditEntry e) {
        List<Attribute> out = new ArrayList<>(13);
        out.add(str("warden.audit.id", e.id()));
        out.add(str("warden.agent.id", e.agentId()));
        e.userId().ifPresent(v -> out.add(str("warden.user.id", v)));
        out.add(str("warden.caller.id", e.callerId()));
        out.add(str("warden.action", e.action()));
        out.add(str("warden.resource", e.resource()));
        out.add(str("warden.result", e.result().wireName()));
        e.reason().ifPresent(v -> out.add(str("warden.reason", v)));
        e.reasonDetail().ifPresent(v -> out.add(str("warden.reason_detail", v)));
        if (!e.delegationChain().isEmpty()) {
            out.add(str("warden.delegation_chain", String.join(",", e.delegationChain())));
        }
        out.add(new Attribute("warden.duration_ms", new Value.Dbl(e.durationMs())));
        out.add(new Attribute("warden.tokens_cost", new Value.Int(e.tokensCost())));
        out.add(str("warden.parameters", json(e)));
        e.ip().ifPresent(v -> out.add(str("client.address", v)));
        e.userAgent().ifPresent(v -> out.add(str("user_agent.original", v)));
        e.callerIp().ifPresent(v -> out.add(str("network.peer.address", v)));
        return out;
    }

    /** The binary protobuf request. */
    byte[] protobuf(List<LogRecord> records) {
        return new ProtoWriter()
                .message(
                        REQUEST_RESOURCE_LOGS,
                        resourceLogs -> resourceLogs
                                .message(
                                        RESOURCE_LOGS_RESOURCE,
                                        resource -> keyValue(
                                                resource,
                                                RESOURCE_ATTRIBUTES,
                                                new Attribute("service.name", new Value.Str(serviceName))))
                                .message(RESOURCE_LOGS_SCOPE_LOGS, scopeLogs -> {
                                    scopeLogs.message(SCOPE_LOGS_SCOPE, scope -> scope.string(SCOPE_NAME, SCOPE));
                                    records.forEach(
                                            r -> scopeLogs.message(SCOPE_LOGS_LOG_RECORDS, log -> logRecord(log, r)));
                                }))
                .toByteArray();
    }

    private static void logRecord(ProtoWriter log, LogRecord r) {
        // Written in field-number order, as protoc does.
        log.fixed64(LOG_TIME_UNIX_NANO, r.timeUnixNano())
                .varint(LOG_SEVERITY_NUMBER, r.severityNumber())
                .string(LOG_SEVERITY_TEXT, r.severityText())
                .message(LOG_BODY, body -> anyValue(body, new Value.Str(r.body())));
        r.attributes().forEach(a -> keyValue(log, LOG_ATTRIBUTES, a));
        log.fixed64(LOG_OBSERVED_TIME_UNIX_NANO, r.observedTimeUnixNano());
    }

    private static void keyValue(ProtoWriter out, int field, Attribute a) {
        out.message(
                field,
                kv -> kv.string(KEY_VALUE_KEY, a.key()).message(KEY_VALUE_VALUE, value -> anyValue(value, a.value())));
    }

    private static void anyValue(ProtoWriter out, Value value) {
        // oneof members are written even when zero or empty: presence is what selects the kind.
        switch (value) {
            case Value.Str s -> out.string(ANY_STRING, s.value());
            case Value.Int i -> out.varint(ANY_INT, i.value());
            case Value.Dbl d -> out.doubleValue(ANY_DOUBLE, d.value());
        }
    }

    /** The OTLP/JSON request. */
    byte[] json(List<LogRecord> records) {
        ObjectNode request = Json.mapper().createObjectNode();
        ObjectNode resourceLogs = request.putArray("resourceLogs").addObject();
        resourceLogs
                .putObject("resource")
                .set("attributes", jsonAttributes(List.of(new Attribute("service.name", new Value.Str(serviceName)))));
        ObjectNode scopeLogs = resourceLogs.putArray("scopeLogs").addObject();
        scopeLogs.putObject("scope").put("name", SCOPE);
        ArrayNode logRecords = scopeLogs.putArray("logRecords");
        for (LogRecord r : records) {
            ObjectNode log = logRecords
                    .addObject()
                    .put("timeUnixNano", Long.toUnsignedString(r.timeUnixNano()))
                    .put("observedTimeUnixNano", Long.toUnsignedString(r.observedTimeUnixNano()))
                    .put("severityNumber", r.severityNumber())
                    .put("severityText", r.severityText());
            log.set("body", jsonValue(new Value.Str(r.body())));
            log.set("attributes", jsonAttributes(r.attributes()));
        }
        try {
            return Json.mapper().writeValueAsBytes(request);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ArrayNode jsonAttributes(List<Attribute> attributes) {
        ArrayNode out = Json.mapper().createArrayNode();
        for (Attribute a : attributes) {
            out.addObject().put("key", a.key()).set("value", jsonValue(a.value()));
        }
        return out;
    }

    private static ObjectNode jsonValue(Value value) {
        ObjectNode out = Json.mapper().createObjectNode();
        switch (value) {
            case Value.Str s -> out.put("stringValue", s.value());
            case Value.Int i -> out.put("intValue", Long.toString(i.value()));
            case Value.Dbl d -> out.put("doubleValue", d.value());
        }
        return out;
    }

    private static Attribute str(String key, String value) {
        return new Attribute(key, new Value.Str(value));
    }

    private static String json(AuditEntry e) {
        try {
            return Json.mapper().writeValueAsString(e.parameters());
        } catch (JsonProcessingException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    static long unixNanos(Instant instant) {
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000_000L), instant.getNano());
    }
}
