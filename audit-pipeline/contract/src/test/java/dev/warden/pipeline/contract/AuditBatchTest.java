package dev.warden.pipeline.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AuditBatchTest {
    private static final AuditEntry ENTRY = new AuditEntry(
            "aud_1",
            "agt_1",
            Optional.of("alice"),
            "agt_1",
            "read",
            "mcp:github:x",
            Map.of("repo", "warden"),
            AuditResult.ALLOWED,
            Optional.empty(),
            0.25,
            0,
            Instant.parse("2026-01-01T00:00:00.123Z"),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty());

    @Test
    void entriesRoundTripInOrderWithTheirTimeAndTrace() {
        byte[] first = AuditEntryCodec.encode(ENTRY);
        byte[] second = "not json at all".getBytes(StandardCharsets.UTF_8);
        String trace = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

        List<AuditBatch.Entry> back = AuditBatch.decode(AuditBatch.encode(
                List.of(new AuditBatch.Entry(1_000, trace, first), new AuditBatch.Entry(2_000, "", second))));

        assertThat(back).hasSize(2);
        assertThat(back.get(0).timestamp()).isEqualTo(1_000);
        assertThat(back.get(0).traceparent()).isEqualTo(trace);
        assertThat(back.get(0).value()).isEqualTo(first);
        assertThat(back.get(1).traceparent()).isEmpty();
        assertThat(back.get(1).value()).isEqualTo(second);
    }

    @Test
    void traceparentsAreReadWithoutTheEntriesAndAMalformedBatchIsRefusedAlike() {
        String trace = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        byte[] good = AuditBatch.encode(List.of(
                new AuditBatch.Entry(1, trace, AuditEntryCodec.encode(ENTRY)),
                new AuditBatch.Entry(2, "", new byte[] {1, 2, 3})));

        assertThat(AuditBatch.traceparents(good)).containsExactly(trace, "");
        byte[] cut = Arrays.copyOf(good, good.length - 1);
        assertThatThrownBy(() -> AuditBatch.traceparents(cut))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("overruns the batch");
        assertThatThrownBy(() -> AuditBatch.decode(cut)).hasMessageContaining("overruns the batch");
    }

    @Test
    void theNewestTimestampIsReadWithoutTheEntriesAndAMalformedBatchIsRefused() {
        byte[] good = AuditBatch.encode(List.of(
                new AuditBatch.Entry(2_000, "", new byte[] {1}),
                new AuditBatch.Entry(5_000, "", new byte[] {2}),
                new AuditBatch.Entry(3_000, "", new byte[] {3})));

        assertThat(AuditBatch.newestTimestamp(good)).isEqualTo(5_000);
        assertThatThrownBy(() -> AuditBatch.newestTimestamp(Arrays.copyOf(good, good.length - 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("overruns the batch");
        assertThatThrownBy(() -> AuditBatch.newestTimestamp(Arrays.copyOf(good, good.length + 1)))
                .hasMessageContaining("after its entries");
    }

    @Test
    void anEntryIsTheAuditEventAsGetAuditShowsIt() throws Exception {
        StreamEvent event = AuditBatch.event(AuditEntryCodec.encode(ENTRY), "7.3");

        assertThat(event.id()).isEqualTo("7.3");
        assertThat(event.type()).isEqualTo(EventType.AUDIT);
        assertThat(event.timestamp()).isEqualTo(ENTRY.timestamp());
        assertThat(event.agentId()).contains("agt_1");
        assertThat(event.userId()).contains("alice");
        assertThat(Json.mapper()
                        .readTree(StreamEventCodec.encode(event))
                        .get("data")
                        .get("entry")
                        .toString())
                .isEqualTo(AuditEntryCodec.toJson(ENTRY).toString());
    }

    @Test
    void anUndecodableEntryFailsAlone() {
        assertThatThrownBy(() -> AuditBatch.event("{\"id\":1}".getBytes(StandardCharsets.UTF_8), "1.0"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void malformedBatchesAreRejectedNotMisread() {
        byte[] good = AuditBatch.encode(List.of(new AuditBatch.Entry(1, "", new byte[] {1, 2, 3})));

        assertThatThrownBy(() -> AuditBatch.decode(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> AuditBatch.decode("{\"type\":\"audit\"}".getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("magic");
        assertThatThrownBy(() -> AuditBatch.decode(Arrays.copyOf(good, good.length - 1)))
                .hasMessageContaining("overruns");
        assertThatThrownBy(() -> AuditBatch.decode(Arrays.copyOf(good, good.length + 1)))
                .hasMessageContaining("after its entries");
        byte[] hugeLength = good.clone();
        hugeLength[hugeLength.length - 5] = 0x7f; // the entry's length field claims ~2 GB
        assertThatThrownBy(() -> AuditBatch.decode(hugeLength)).isInstanceOf(IllegalArgumentException.class);
        byte[] negativeCount = good.clone();
        negativeCount[4] = (byte) 0xff;
        assertThatThrownBy(() -> AuditBatch.decode(negativeCount)).hasMessageContaining("entries");
    }

    @Test
    void aBatchHoldsOneToMaxEntries() {
        AuditBatch.Entry entry = new AuditBatch.Entry(1, "", new byte[] {1});

        assertThatThrownBy(() -> AuditBatch.encode(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> AuditBatch.encode(Collections.nCopies(AuditBatch.MAX_ENTRIES + 1, entry)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(AuditBatch.decode(AuditBatch.encode(Collections.nCopies(AuditBatch.MAX_ENTRIES, entry))))
                .hasSize(AuditBatch.MAX_ENTRIES);
        assertThat(AuditBatch.MAX_ENTRIES).isLessThan(EventIds.MAX_INDEX);
    }
}
