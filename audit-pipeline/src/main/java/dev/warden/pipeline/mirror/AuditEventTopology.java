package dev.warden.pipeline.mirror;

import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditEntryCodec;
import dev.warden.pipeline.contract.AuditSerdes;
import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.pipeline.contract.StreamEventSerdes;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;

/**
 * The {@code audit} stream event: every entry of {@code warden.audit} (allowed, denied and rate-limited
 * decisions alike) is mirrored onto {@code warden.events} as one {@code audit} event, keyed by its agent, with
 * {@code agentId}, {@code userId} and {@code data = {"entry": <the audit entry as GET /audit shows it>}}.
 * Parameters are already redacted when the entry is made, so no secret reaches the event. Run with
 * exactly-once processing, each entry becomes exactly one event.
 */
public final class AuditEventTopology {
    private AuditEventTopology() {
    }

    /** Adds the topology to {@code builder}. */
    public static void build(StreamsBuilder builder, String auditTopic, String eventsTopic) {
        builder.stream(auditTopic, Consumed.with(Serdes.String(), AuditSerdes.entries()))
                .filter((key, entry) -> entry != null)
                .map((key, entry) -> {
                    StreamEvent.Draft event = event(entry);
                    return KeyValue.pair(event.subjectKey(), event);
                })
                .to(eventsTopic, Produced.with(Serdes.String(), StreamEventSerdes.drafts()));
    }

    /**
     * The {@code audit} event of {@code entry}. Its data holds the entry as a value that is written straight
     * to the event's bytes (this runs once per decision); consumers read it back as JSON values.
     */
    public static StreamEvent.Draft event(AuditEntry entry) {
        return new StreamEvent.Draft(EventType.AUDIT, entry.timestamp(),
                Map.of("entry", AuditEntryCodec.asJsonValue(entry)), Optional.of(entry.agentId()), entry.userId());
    }
}
