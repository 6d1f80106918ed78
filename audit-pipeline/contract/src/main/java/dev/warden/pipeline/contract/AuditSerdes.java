package dev.warden.pipeline.contract;

import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.processor.TimestampExtractor;

/** Kafka serdes for audit entries, and the extractor that gives a record its decision time. */
public final class AuditSerdes {
    private AuditSerdes() {}

    /** JSON (see {@link AuditEntryCodec}); an undecodable value deserializes to {@code null} and is skipped. */
    public static Serde<AuditEntry> entries() {
        return Serdes.serdeFrom(
                (Serializer<AuditEntry>) (topic, e) -> e == null ? null : AuditEntryCodec.encode(e),
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

    /** How far a decision's own time may run ahead of the time Kafka recorded it. */
    public static final long MAX_AHEAD_MILLIS = 5 * 60_000;

    /**
     * Event time = the decision's timestamp, never more than {@link #MAX_AHEAD_MILLIS} ahead of the record's
     * Kafka timestamp: a decision clock far ahead of the brokers' would otherwise put records into the
     * application's changelogs that the brokers reject as from the future, stopping the application.
     * Undecodable values use the record timestamp.
     */
    public static TimestampExtractor decisionTime() {
        return (record, partitionTime) -> record.value() instanceof AuditEntry e
                ? Math.min(e.timestamp().toEpochMilli(), record.timestamp() + MAX_AHEAD_MILLIS)
                : record.timestamp();
    }
}
