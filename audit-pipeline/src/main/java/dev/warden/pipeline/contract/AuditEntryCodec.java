package dev.warden.pipeline.contract;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.authorizer.domain.WireEnum;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * JSON wire form of audit entries: the SPEC's fields ({@code id, agentId, userId, action, resource,
 * parameters, result, durationMs, tokensCost, timestamp}) plus {@code callerId}, {@code reason} and
 * {@code context: {ip, userAgent}}.
 */
public final class AuditEntryCodec {
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() { };

    private AuditEntryCodec() {
    }

    /** The JSON object of {@code entry}. */
    public static ObjectNode toJson(AuditEntry entry) {
        ObjectNode node = Json.mapper().createObjectNode()
                .put("id", entry.id())
                .put("agentId", entry.agentId())
                .put("userId", entry.userId().orElse(null))
                .put("callerId", entry.callerId())
                .put("action", entry.action())
                .put("resource", entry.resource());
        node.set("parameters", Json.mapper().valueToTree(entry.parameters()));
        node.put("result", entry.result().wireName())
                .put("reason", entry.reason().orElse(null))
                .put("durationMs", entry.durationMs())
                .put("tokensCost", entry.tokensCost())
                .put("timestamp", Json.timestamp(entry.timestamp()));
        ObjectNode context = node.putObject("context");
        context.put("ip", entry.ip().orElse(null)).put("userAgent", entry.userAgent().orElse(null));
        return node;
    }

    /** The topic value of {@code entry}. */
    public static byte[] encode(AuditEntry entry) {
        try {
            return Json.mapper().writeValueAsBytes(toJson(entry));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Reads a topic value.
     *
     * @throws IllegalArgumentException when the bytes are not an audit entry
     */
    public static AuditEntry decode(byte[] bytes) {
        try {
            JsonNode n = Json.mapper().readTree(bytes);
            return new AuditEntry(
                    n.get("id").asText(), n.get("agentId").asText(), text(n, "userId"), n.get("callerId").asText(),
                    n.get("action").asText(), n.get("resource").asText(),
                    Json.mapper().convertValue(n.get("parameters"), MAP),
                    WireEnum.parse(AuditResult.class, n.get("result").asText()).orElseThrow(
                            () -> new IllegalArgumentException("unknown result " + n.get("result"))),
                    text(n, "reason"), n.get("durationMs").asDouble(), n.get("tokensCost").asLong(),
                    Instant.parse(n.get("timestamp").asText()),
                    text(n.path("context"), "ip"), text(n.path("context"), "userAgent"));
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("not an audit entry: " + e.getMessage(), e);
        }
    }

    private static Optional<String> text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? Optional.empty() : Optional.of(value.asText());
    }
}
