package dev.warden.pipeline.contract;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonSerializable;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.jsontype.TypeSerializer;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.TokenBuffer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * JSON wire form of audit entries: the SPEC's fields ({@code id, agentId, userId, action, resource,
 * parameters, result, durationMs, tokensCost, timestamp}) plus {@code callerId}, {@code reason},
 * {@code reasonDetail} and {@code context: {ip, userAgent, callerIp}}. The same object is what {@code GET /audit}, the export, the {@code audit}
 * stream event and the external sinks show.
 *
 * <p>Every decision passes through {@link #encode} and {@link #decode} several times (API, writer, pipeline),
 * so both stream tokens instead of building a tree.
 */
public final class AuditEntryCodec {
    /** Reads a written entry back as a tree with exactly the numbers it was written with. */
    private static final ObjectReader TREES = Json.mapper()
            .reader()
            .without(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .with(JsonNodeFactory.withExactBigDecimals(true));

    private AuditEntryCodec() {}

    /** Writes the JSON object of {@code entry} to {@code g}. */
    public static void write(JsonGenerator g, AuditEntry entry) throws IOException {
        g.writeStartObject();
        g.writeStringField("id", entry.id());
        g.writeStringField("agentId", entry.agentId());
        // SPEC Audit entry: userId is a string; an unknown agent has no owner, which reads as "".
        g.writeStringField("userId", entry.userId().orElse(""));
        g.writeStringField("callerId", entry.callerId());
        g.writeStringField("action", entry.action());
        g.writeStringField("resource", entry.resource());
        g.writeFieldName("parameters");
        Json.mapper().writeValue(g, entry.parameters());
        g.writeStringField("result", entry.result().wireName());
        g.writeStringField("reason", entry.reason().orElse(null));
        g.writeStringField("reasonDetail", entry.reasonDetail().orElse(null));
        if (!entry.delegationChain().isEmpty()) {
            g.writeArrayFieldStart("delegationChain");
            for (String link : entry.delegationChain()) {
                g.writeString(link);
            }
            g.writeEndArray();
        }
        g.writeNumberField("durationMs", entry.durationMs());
        g.writeNumberField("tokensCost", entry.tokensCost());
        g.writeStringField("timestamp", Json.timestamp(entry.timestamp()));
        g.writeObjectFieldStart("context");
        g.writeStringField("ip", entry.ip().orElse(null));
        g.writeStringField("userAgent", entry.userAgent().orElse(null));
        g.writeStringField("callerIp", entry.callerIp().orElse(null));
        g.writeEndObject();
        g.writeEndObject();
    }

    /**
     * {@code entry} as a value Jackson writes as its JSON object, for a map of JSON values (such as the data of
     * the {@code audit} stream event) that is only ever written: no tree is built.
     */
    public static JsonSerializable asJsonValue(AuditEntry entry) {
        return new EntryValue(entry);
    }

    private record EntryValue(AuditEntry entry) implements JsonSerializable {
        @Override
        public void serialize(JsonGenerator g, SerializerProvider serializers) throws IOException {
            write(g, entry);
        }

        @Override
        public void serializeWithType(JsonGenerator g, SerializerProvider serializers, TypeSerializer typeSer)
                throws IOException {
            write(g, entry);
        }
    }

    /** The JSON object of {@code entry}, as a tree (for responses that assemble trees). */
    public static ObjectNode toJson(AuditEntry entry) {
        try (TokenBuffer buffer = new TokenBuffer(Json.mapper(), false)) {
            write(buffer, entry);
            return (ObjectNode) TREES.readTree(buffer.asParser());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The topic value of {@code entry}. */
    public static byte[] encode(AuditEntry entry) {
        return Json.bytes(512, g -> write(g, entry));
    }

    /**
     * Reads a topic value.
     *
     * @throws IllegalArgumentException when the bytes are not an audit entry
     */
    public static AuditEntry decode(byte[] bytes) {
        try (JsonParser p = Json.mapper().createParser(bytes)) {
            Fields f = new Fields();
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                p.nextToken();
                switch (name) {
                    case "id" -> f.id = Json.nullableString(p);
                    case "agentId" -> f.agentId = Json.nullableString(p);
                    case "userId" -> f.userId = Json.nullableString(p);
                    case "callerId" -> f.callerId = Json.nullableString(p);
                    case "action" -> f.action = Json.nullableString(p);
                    case "resource" -> f.resource = Json.nullableString(p);
                    case "parameters" ->
                        f.parameters = p.currentToken() == JsonToken.VALUE_NULL ? null : Json.readNestedObject(p);
                    case "result" -> f.result = Json.nullableString(p);
                    case "reason" -> f.reason = Json.nullableString(p);
                    case "reasonDetail" -> f.reasonDetail = Json.nullableString(p);
                    case "delegationChain" -> f.delegationChain = strings(p);
                    case "durationMs" -> f.durationMs = number(p).doubleValue();
                    case "tokensCost" -> f.tokensCost = number(p).longValue();
                    case "timestamp" -> f.timestamp = Json.nullableString(p);
                    case "context" -> readContext(p, f);
                    default -> p.skipChildren();
                }
            }
            if (p.nextToken() != null) {
                throw new IllegalArgumentException("trailing content after the entry");
            }
            return f.entry();
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("not an audit entry: " + e.getMessage(), e);
        }
    }

    private static void readContext(JsonParser p, Fields f) throws IOException {
        if (p.currentToken() == JsonToken.VALUE_NULL) {
            return;
        }
        if (p.currentToken() != JsonToken.START_OBJECT) {
            throw new IllegalArgumentException("context is not an object");
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            p.nextToken();
            switch (name) {
                case "ip" -> f.ip = Json.nullableString(p);
                case "userAgent" -> f.userAgent = Json.nullableString(p);
                case "callerIp" -> f.callerIp = Json.nullableString(p);
                default -> p.skipChildren();
            }
        }
    }

    private static List<String> strings(JsonParser p) throws IOException {
        if (p.currentToken() == JsonToken.VALUE_NULL) {
            return List.of();
        }
        if (p.currentToken() != JsonToken.START_ARRAY) {
            throw new IllegalArgumentException("delegationChain is not an array");
        }
        List<String> values = new java.util.ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (p.currentToken() != JsonToken.VALUE_STRING) {
                throw new IllegalArgumentException("delegationChain holds a non-string");
            }
            values.add(p.getText());
        }
        return values;
    }

    private static Number number(JsonParser p) throws IOException {
        if (!p.currentToken().isNumeric()) {
            throw new IllegalArgumentException(p.currentName() + " is not a number");
        }
        return p.getNumberValue();
    }

    /** The fields as read, checked when the entry is made. */
    private static final class Fields {
        String id;
        String agentId;
        String userId;
        String callerId;
        String action;
        String resource;
        Map<String, Object> parameters;
        String result;
        String reason;
        Double durationMs;
        Long tokensCost;
        String timestamp;
        String ip;
        String userAgent;
        String callerIp;
        String reasonDetail;
        List<String> delegationChain = List.of();

        AuditEntry entry() {
            AuditResult parsed = WireEnum.parse(AuditResult.class, required("result", result))
                    .orElseThrow(() -> new IllegalArgumentException("unknown result " + result));
            return new AuditEntry(
                    required("id", id),
                    required("agentId", agentId),
                    Optional.ofNullable(userId).filter(u -> !u.isEmpty()),
                    required("callerId", callerId),
                    required("action", action),
                    required("resource", resource),
                    required("parameters", parameters),
                    parsed,
                    Optional.ofNullable(reason),
                    required("durationMs", durationMs),
                    required("tokensCost", tokensCost),
                    Json.parseTimestamp(required("timestamp", timestamp)),
                    Optional.ofNullable(ip),
                    Optional.ofNullable(userAgent),
                    Optional.ofNullable(callerIp),
                    Optional.ofNullable(reasonDetail),
                    delegationChain);
        }

        private static <T> T required(String field, T value) {
            if (value == null) {
                throw new IllegalArgumentException("missing " + field);
            }
            return value;
        }
    }
}
