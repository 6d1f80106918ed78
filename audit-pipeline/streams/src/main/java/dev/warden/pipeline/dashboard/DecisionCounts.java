package dev.warden.pipeline.dashboard;

import dev.warden.pipeline.contract.AuditResult;
import java.nio.ByteBuffer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Decisions counted for one agent over some period: all calls, and those denied (denied or rate-limited).
 */
public record DecisionCounts(long calls, long denied) {
    /** Nothing counted. */
    public static final DecisionCounts ZERO = new DecisionCounts(0, 0);

    /** These counts plus one decision with {@code result}. */
    public DecisionCounts plus(AuditResult result) {
        return new DecisionCounts(calls + 1, denied + (result == AuditResult.ALLOWED ? 0 : 1));
    }

    /** Element-wise sum. */
    public DecisionCounts plus(DecisionCounts other) {
        return new DecisionCounts(calls + other.calls, denied + other.denied);
    }

    /** 16-byte big-endian serde. */
    public static Serde<DecisionCounts> serde() {
        return Serdes.serdeFrom(
                (Serializer<DecisionCounts>) (topic, c) -> c == null
                        ? null
                        : ByteBuffer.allocate(16)
                                .putLong(c.calls)
                                .putLong(c.denied)
                                .array(),
                (Deserializer<DecisionCounts>) (topic, bytes) -> {
                    if (bytes == null || bytes.length != 16) {
                        return null;
                    }
                    ByteBuffer b = ByteBuffer.wrap(bytes);
                    return new DecisionCounts(b.getLong(), b.getLong());
                });
    }
}
