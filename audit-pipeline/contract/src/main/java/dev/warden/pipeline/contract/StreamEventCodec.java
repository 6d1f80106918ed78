package dev.warden.pipeline.contract;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * The JSON wire form of stream events: {@code {"type","timestamp","data","agentId"?,"userId"?}} on the
 * topic (a {@link StreamEvent.Draft}), plus {@code "id"} once the event has a position. {@code type} is
 * written first, so a consumer that wants only some types ({@link #peekType}) reads one token to decide.
 * Both directions stream tokens: with the {@code audit} events, every decision passes through here.
 */
public final class StreamEventCodec {

    private StreamEventCodec() {}

    /** The topic value for {@code draft}. */
    public static byte[] encode(StreamEvent.Draft draft) {
        return write(null, draft);
    }

    /** The client-facing JSON of a positioned event (SSE {@code data:}, replay, webhooks). */
    public static byte[] encode(StreamEvent event) {
        return write(
                event.id(),
                new StreamEvent.Draft(event.type(), event.timestamp(), event.data(), event.agentId(), event.userId()));
    }

    /**
     * Reads a topic value.
     *
     * @throws IllegalArgumentException when the bytes are not a stream event
     */
    public static StreamEvent.Draft decodeDraft(byte[] bytes) {
        Fields<Map<String, Object>> f = fields(bytes, (p, b) -> Json.readNestedObject(p));
        return new StreamEvent.Draft(
                f.type(),
                f.timestamp(),
                f.data() == null ? Map.of() : f.data(),
                Optional.ofNullable(f.agentId()),
                Optional.ofNullable(f.userId()));
    }

    /**
     * A topic value whose {@code data} is kept as the JSON text it arrived as, for a reader that stores it and has no
     * use for its members (the stream store): accepted and refused exactly as {@link #decodeDraft} accepts and
     * refuses, without building the data's maps and writing them out again.
     *
     * @param dataJson the data object's JSON text as it stands in the value ({@code {}} when it is null or absent)
     */
    public record Envelope(
            EventType type, Instant timestamp, String dataJson, Optional<String> agentId, Optional<String> userId) {}

    /**
     * Reads a topic value, its {@code data} kept as text ({@link Envelope}).
     *
     * @throws IllegalArgumentException when the bytes are not a stream event
     */
    public static Envelope decodeEnvelope(byte[] bytes) {
        Fields<String> f = fields(bytes, StreamEventCodec::objectText);
        return new Envelope(
                f.type(),
                f.timestamp(),
                f.data() == null ? "{}" : f.data(),
                Optional.ofNullable(f.agentId()),
                Optional.ofNullable(f.userId()));
    }

    /** Reads the value of {@code data} (its first token current); never called for a JSON {@code null}. */
    @FunctionalInterface
    private interface DataReader<T> {
        T read(JsonParser parser, byte[] bytes) throws IOException;
    }

    private record Fields<T>(EventType type, Instant timestamp, T data, String agentId, String userId) {}

    private static <T> Fields<T> fields(byte[] bytes, DataReader<T> dataReader) {
        try (JsonParser p = Json.mapper().createParser(bytes)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("not a JSON object");
            }
            EventType type = null;
            Instant timestamp = null;
            T data = null;
            String agentId = null;
            String userId = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                p.nextToken();
                switch (name) {
                    case "type" -> type = type(p);
                    case "timestamp" -> timestamp = Json.parseTimestamp(String.valueOf(Json.nullableString(p)));
                    case "data" -> data = p.currentToken() == JsonToken.VALUE_NULL ? null : dataReader.read(p, bytes);
                    case "agentId" -> agentId = Json.nullableString(p);
                    case "userId" -> userId = Json.nullableString(p);
                    default -> p.skipChildren();
                }
            }
            if (type == null || timestamp == null) {
                throw new IllegalArgumentException(type == null ? "missing type" : "missing timestamp");
            }
            return new Fields<>(type, timestamp, data, agentId, userId);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("not a stream event: " + e.getMessage(), e);
        }
    }

    /** The JSON object at the parser's current token, as the text it is written in; anything else is refused. */
    private static String objectText(JsonParser p, byte[] bytes) throws IOException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            throw new IllegalArgumentException("data is not a JSON object");
        }
        long start = p.currentTokenLocation().getByteOffset();
        p.skipChildren();
        long end = p.currentLocation().getByteOffset();
        return new String(bytes, (int) start, (int) (end - start), StandardCharsets.UTF_8);
    }

    /**
     * The type of a topic value, read without decoding the rest (one token when the producer wrote
     * {@code type} first, as this codec does); empty when the value is not a stream event of a known type.
     */
    public static Optional<EventType> peekType(byte[] bytes) {
        try (JsonParser p = Json.mapper().createParser(bytes)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return Optional.empty();
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                p.nextToken();
                if (name.equals("type")) {
                    return Optional.of(type(p));
                }
                p.skipChildren();
            }
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static EventType type(JsonParser p) throws IOException {
        String text = Json.nullableString(p);
        return WireEnum.parse(EventType.class, String.valueOf(text))
                .orElseThrow(() -> new IllegalArgumentException("unknown event type: " + text));
    }

    private static byte[] write(String id, StreamEvent.Draft draft) {
        return Json.bytes(256, g -> {
            g.writeStartObject();
            if (id != null) {
                g.writeStringField("id", id);
            }
            g.writeStringField("type", draft.type().wireName());
            g.writeStringField("timestamp", Json.timestamp(draft.timestamp()));
            g.writeFieldName("data");
            Json.mapper().writeValue(g, draft.data());
            if (draft.agentId().isPresent()) {
                g.writeStringField("agentId", draft.agentId().get());
            }
            if (draft.userId().isPresent()) {
                g.writeStringField("userId", draft.userId().get());
            }
            g.writeEndObject();
        });
    }
}
