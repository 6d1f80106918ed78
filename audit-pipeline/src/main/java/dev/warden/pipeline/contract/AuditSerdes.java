package dev.warden.pipeline.contract;

import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.processor.TimestampExtractor;

/** Kafka serdes for audit entries, and the extractor that gives a record its decision time. */
public final class AuditSerdes {
    private AuditSerdes() {
    }

    /** JSON (see {@link AuditEntryCodec}); an undecodable value deserializes to {@code null} and is skipped. */
    public static Serde<AuditEntry> entries() {
        return Serdes.serdeFrom((Serializer<AuditEntry>) (topic, e) -> e == null ? null : AuditEntryCodec.encode(e),
                (Deserializer<AuditEntry>) (topic, bytes) -> {
                    if (bytes == null) {
                        return null;
                    }
                    try {
                        return AuditEntryCodec.decode(bytes);
                    } catch (IllegalArgumentException e) {
                        return null;
                    }
                });
    }

    /** Event time = the decision's timestamp (falls back to the record timestamp for undecodable values). */
    public static TimestampExtractor decisionTime() {
        return (record, partitionTime) -> record.value() instanceof AuditEntry e
                ? e.timestamp().toEpochMilli() : record.timestamp();
    }
}
