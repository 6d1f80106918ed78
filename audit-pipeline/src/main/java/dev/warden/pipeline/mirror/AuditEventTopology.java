package dev.warden.pipeline.mirror;

import dev.warden.authorizer.tracing.TraceHeaders;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditEntryCodec;
import dev.warden.pipeline.contract.AuditSerdes;
import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.pipeline.contract.StreamEventSerdes;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.api.ContextualProcessor;
import org.apache.kafka.streams.processor.api.Record;

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

    /** Adds the topology to {@code builder}; no tracing. */
    public static void build(StreamsBuilder builder, String auditTopic, String eventsTopic) {
        build(builder, auditTopic, eventsTopic, OpenTelemetry.noop().getTracer("warden"));
    }

    /**
     * Adds the topology to {@code builder}, with a span {@code audit mirror} for each entry that carries a trace
     * context; the event carries the same context on to the stream.
     */
    public static void build(StreamsBuilder builder, String auditTopic, String eventsTopic, Tracer tracer) {
        builder.stream(auditTopic, Consumed.with(Serdes.String(), AuditSerdes.entries()))
                .process(() -> new Mirror(tracer))
                .to(eventsTopic, Produced.with(Serdes.String(), StreamEventSerdes.drafts()));
    }

    /** One entry in, its event out (keyed by the event's subject), headers (the trace context) kept. */
    private static final class Mirror extends ContextualProcessor<String, AuditEntry, String, StreamEvent.Draft> {
        private final Tracer tracer;

        Mirror(Tracer tracer) {
            this.tracer = tracer;
        }

        @Override
        public void process(Record<String, AuditEntry> record) {
            if (record.value() == null) {
                return;
            }
            Span span = TraceHeaders.span(tracer, "audit mirror", SpanKind.CONSUMER, record.headers());
            try {
                StreamEvent.Draft event = event(record.value());
                context().forward(record.withKey(event.subjectKey()).withValue(event));
            } finally {
                span.end();
            }
        }
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
