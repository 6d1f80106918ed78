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
        StreamEvent.Draft draft = new StreamEvent.Draft(EventType.AGENT_CREATED, Instant.parse("2026-01-02T03:04:05.678Z"),
                Map.of("agent", Map.of("id", "agt_1")), Optional.of("agt_1"), Optional.of("usr_1"));

        StreamEvent.Draft decoded = StreamEventCodec.decodeDraft(StreamEventCodec.encode(draft));

        assertThat(decoded).isEqualTo(draft);
        assertThat(decoded.subjectKey()).isEqualTo("agt_1");
    }

    @Test
    void positionedEventCarriesItsOffsetAsIdAndMillisecondTimestamp() {
        StreamEvent event = new StreamEvent.Draft(EventType.AUTH_SIGNIN, Instant.parse("2026-01-02T03:04:05Z"), Map.of(),
                Optional.empty(), Optional.of("usr_1")).at(42);

        String json = new String(StreamEventCodec.encode(event), StandardCharsets.UTF_8);

        assertThat(json).startsWith("{\"id\":\"42\",\"type\":\"auth.signin\",\"timestamp\":\"2026-01-02T03:04:05.000Z\"")
                .doesNotContain("agentId");
    }

    @Test
    void unknownTypeIsRejected() {
        byte[] bad = "{\"type\":\"nope\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"data\":{}}".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> StreamEventCodec.decodeDraft(bad)).isInstanceOf(IllegalArgumentException.class);
    }
}
