package dev.warden.pipeline.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StreamEventCodecTest {
    @Test
    void draftRoundTripsThroughTheTopicForm() {
        StreamEvent.Draft draft = new StreamEvent.Draft(
                EventType.AGENT_CREATED,
                Instant.parse("2026-01-02T03:04:05.678Z"),
                Map.of("agent", Map.of("id", "agt_1")),
                Optional.of("agt_1"),
                Optional.of("usr_1"));

        StreamEvent.Draft decoded = StreamEventCodec.decodeDraft(StreamEventCodec.encode(draft));

        assertThat(decoded).isEqualTo(draft);
        assertThat(decoded.subjectKey()).isEqualTo("agt_1");
    }

    @Test
    void positionedEventCarriesItsOffsetAsIdAndMillisecondTimestamp() {
        StreamEvent event = new StreamEvent.Draft(
                        EventType.AUTH_SIGNIN,
                        Instant.parse("2026-01-02T03:04:05Z"),
                        Map.of(),
                        Optional.empty(),
                        Optional.of("usr_1"))
                .at(42);

        String json = new String(StreamEventCodec.encode(event), StandardCharsets.UTF_8);

        assertThat(json)
                .startsWith("{\"id\":\"42\",\"type\":\"auth.signin\",\"timestamp\":\"2026-01-02T03:04:05.000Z\"")
                .doesNotContain("agentId");
    }

    @Test
    void unknownTypeIsRejected() {
        byte[] bad = "{\"type\":\"nope\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"data\":{}}"
                .getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> StreamEventCodec.decodeDraft(bad)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void peekTypeReadsTheTypeWhereverItIsAndNothingElse() {
        StreamEvent.Draft draft = new StreamEvent.Draft(
                EventType.COST_RECORDED,
                Instant.parse("2026-01-02T03:04:05.678Z"),
                Map.of("cost", Map.of("costUsd", 1)),
                Optional.of("agt_1"),
                Optional.empty());
        assertThat(StreamEventCodec.peekType(StreamEventCodec.encode(draft))).contains(EventType.COST_RECORDED);

        byte[] typeLast = "{\"data\":{\"type\":\"audit\"},\"timestamp\":\"x\",\"type\":\"agent.created\"}"
                .getBytes(StandardCharsets.UTF_8);
        assertThat(StreamEventCodec.peekType(typeLast)).contains(EventType.AGENT_CREATED);
        assertThat(StreamEventCodec.peekType("{\"type\":\"nope\"}".getBytes(StandardCharsets.UTF_8)))
                .isEmpty();
        assertThat(StreamEventCodec.peekType("[1]".getBytes(StandardCharsets.UTF_8)))
                .isEmpty();
        assertThat(StreamEventCodec.peekType("{\"ty".getBytes(StandardCharsets.UTF_8)))
                .isEmpty();
    }

    @Test
    void typedSerdeDecodesOnlyTheWantedTypes() {
        StreamEvent.Draft cost = new StreamEvent.Draft(
                EventType.COST_RECORDED,
                Instant.parse("2026-01-02T03:04:05.678Z"),
                Map.of("cost", Map.of("costUsd", 1)),
                Optional.of("agt_1"),
                Optional.empty());
        StreamEvent.Draft audit = new StreamEvent.Draft(
                EventType.AUDIT, cost.timestamp(), Map.of("entry", Map.of()), Optional.of("agt_1"), Optional.empty());
        var deserializer = StreamEventSerdes.drafts(java.util.Set.of(EventType.COST_RECORDED))
                .deserializer();

        assertThat(deserializer.deserialize("t", StreamEventCodec.encode(cost))).isEqualTo(cost);
        assertThat(deserializer.deserialize("t", StreamEventCodec.encode(audit)))
                .isNull();
    }

    @Test
    void missingTimestampOrNonStringFieldsAreRejected() {
        assertThatThrownBy(() -> StreamEventCodec.decodeDraft(
                        "{\"type\":\"audit\",\"data\":{}}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StreamEventCodec.decodeDraft(
                        ("{\"type\":\"audit\",\"timestamp\":" + "\"2026-01-01T00:00:00.000Z\",\"agentId\":7}")
                                .getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anEnvelopeKeepsTheDataAsWrittenAndRefusesWhatDecodeDraftRefuses() throws Exception {
        StreamEvent.Draft draft = new StreamEvent.Draft(
                EventType.AUTH_SIGNIN,
                Instant.parse("2026-01-02T03:04:05.678Z"),
                Map.of(
                        "client",
                        Map.of("id", "c\u00e9\"1", "name", "\u2603 snow"),
                        "n",
                        1.5,
                        "list",
                        java.util.List.of(1, "}")),
                Optional.of("agt_1"),
                Optional.empty());
        byte[] bytes = StreamEventCodec.encode(draft);

        StreamEventCodec.Envelope envelope = StreamEventCodec.decodeEnvelope(bytes);

        assertThat(envelope.type()).isEqualTo(draft.type());
        assertThat(envelope.timestamp()).isEqualTo(draft.timestamp());
        assertThat(envelope.agentId()).isEqualTo(draft.agentId());
        assertThat(envelope.userId()).isEqualTo(draft.userId());
        assertThat(Json.mapper().readTree(envelope.dataJson()))
                .isEqualTo(Json.mapper().valueToTree(draft.data()));
        String text = new String(bytes, StandardCharsets.UTF_8);
        assertThat(text).contains(envelope.dataJson());

        String[] values = {
            "{\"type\":\"agent.created\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"data\":null}",
            "{\"type\":\"agent.created\",\"timestamp\":\"2026-01-01T00:00:00.000Z\"}",
            "{\"data\":{\"a\":[{}]},\"type\":\"agent.created\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"x\":[1]}",
            "{\"type\":\"agent.created\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"data\":[1]}",
            "{\"type\":\"agent.created\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"data\":7}",
            "{\"type\":\"agent.created\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"data\":{\"a\":}}",
            "{\"type\":\"agent.created\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"data\":{\"a\":1}",
            "{\"type\":\"nope\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"data\":{}}",
            "{\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"data\":{}}",
            "[1]",
            "",
        };
        for (String value : values) {
            byte[] b = value.getBytes(StandardCharsets.UTF_8);
            StreamEvent.Draft decoded;
            try {
                decoded = StreamEventCodec.decodeDraft(b);
            } catch (IllegalArgumentException e) {
                assertThatThrownBy(() -> StreamEventCodec.decodeEnvelope(b))
                        .as(value)
                        .isInstanceOf(IllegalArgumentException.class);
                continue;
            }
            StreamEventCodec.Envelope e = StreamEventCodec.decodeEnvelope(b);
            assertThat(Json.mapper().readTree(e.dataJson()))
                    .as(value)
                    .isEqualTo(Json.mapper().valueToTree(decoded.data()));
            assertThat(e.type()).as(value).isEqualTo(decoded.type());
        }
    }
}
