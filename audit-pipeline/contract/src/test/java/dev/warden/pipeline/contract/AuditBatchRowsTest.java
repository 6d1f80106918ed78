package dev.warden.pipeline.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class AuditBatchRowsTest {
    private static final List<AuditBatchRows.Key> KEYS =
            List.of(new AuditBatchRows.Key(1_767_225_600_123L, "aud_1"), new AuditBatchRows.Key(-5, "aud_ü"));

    @Test
    void keysRoundTripInOrderThroughTheirHeader() {
        RecordHeaders headers = new RecordHeaders();
        headers.add(AuditBatchRows.header(KEYS));

        assertThat(AuditBatchRows.of(headers)).contains(KEYS);
        assertThat(AuditBatchRows.decode(AuditBatchRows.encode(KEYS))).isEqualTo(KEYS);
    }

    @Test
    void aRecordWithoutTheHeaderOrWithMalformedKeysHasNone() {
        assertThat(AuditBatchRows.of(new RecordHeaders())).isEmpty();
        assertThat(AuditBatchRows.of(null)).isEmpty();
        RecordHeaders bad = new RecordHeaders();
        bad.add(AuditBatchRows.HEADER, "WAR1".getBytes());
        assertThat(AuditBatchRows.of(bad)).isEmpty();
    }

    @Test
    void malformedKeysAreRefusedNamingWhatIsWrong() {
        byte[] good = AuditBatchRows.encode(KEYS);
        assertThatThrownBy(() -> AuditBatchRows.decode(Arrays.copyOf(good, good.length - 1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> AuditBatchRows.decode(Arrays.copyOf(good, good.length + 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("after them");
        byte[] wrongMagic = good.clone();
        wrongMagic[0] = 'X';
        assertThatThrownBy(() -> AuditBatchRows.decode(wrongMagic)).hasMessageContaining("magic");
        byte[] hugeCount = ByteBuffer.allocate(8)
                .put("WAR1".getBytes())
                .putInt(Integer.MAX_VALUE)
                .array();
        assertThatThrownBy(() -> AuditBatchRows.decode(hugeCount)).hasMessageContaining("entries");
        byte[] longId = ByteBuffer.allocate(20)
                .put("WAR1".getBytes())
                .putInt(1)
                .putLong(0)
                .putInt(1_000)
                .array();
        assertThatThrownBy(() -> AuditBatchRows.decode(longId)).hasMessageContaining("1000 bytes");
    }
}
