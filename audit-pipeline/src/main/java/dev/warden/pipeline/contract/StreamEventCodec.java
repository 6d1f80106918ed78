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
 * The JSON wire form of stream events: {@code {"type","timestamp","data","agentId"?,"userId"?}} on the
 * topic (a {@link StreamEvent.Draft}), plus {@code "id"} once the event has a position.
 */
public final class StreamEventCodec {
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() { };

    private StreamEventCodec() {
    }

    /** The topic value for {@code draft}. */
    public static byte[] encode(StreamEvent.Draft draft) {
        return write(draftNode(draft));
    }

    /** The client-facing JSON of a positioned event (SSE {@code data:}, replay, webhooks). */
    public static byte[] encode(StreamEvent event) {
        ObjectNode node = Json.mapper().createObjectNode().put("id", event.id());
        node.setAll(draftNode(new StreamEvent.Draft(event.type(), event.timestamp(), event.data(), event.agentId(),
                event.userId())));
        return write(node);
    }

    /**
     * Reads a topic value.
     *
     * @throws IllegalArgumentException when the bytes are not a stream event
     */
    public static StreamEvent.Draft decodeDraft(byte[] bytes) {
        try {
            JsonNode node = Json.mapper().readTree(bytes);
            EventType type = WireEnum.parse(EventType.class, node.path("type").asText())
                    .orElseThrow(() -> new IllegalArgumentException("unknown event type: " + node.path("type")));
            Map<String, Object> data = Json.mapper().convertValue(node.path("data"), MAP);
            return new StreamEvent.Draft(type, Instant.parse(node.path("timestamp").asText()),
                    data == null ? Map.of() : data, text(node, "agentId"), text(node, "userId"));
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("not a stream event: " + e.getMessage(), e);
        }
    }

    private static ObjectNode draftNode(StreamEvent.Draft draft) {
        ObjectNode node = Json.mapper().createObjectNode()
                .put("type", draft.type().wireName())
                .put("timestamp", Json.timestamp(draft.timestamp()));
        node.set("data", Json.mapper().valueToTree(draft.data()));
        draft.agentId().ifPresent(id -> node.put("agentId", id));
        draft.userId().ifPresent(id -> node.put("userId", id));
        return node;
    }

    private static Optional<String> text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? Optional.empty() : Optional.of(value.asText());
    }

    private static byte[] write(JsonNode node) {
        try {
            return Json.mapper().writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
