package dev.warden.api.authorize;

import dev.warden.api.errors.UnavailableException;
import dev.warden.api.kafka.KafkaClients;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditEntryCodec;
import dev.warden.pipeline.contract.TraceHeaders;
import dev.warden.runtime.consumer.SinkCounters;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Publishes a decision's audit entry to {@code warden.audit} and waits until Kafka has acknowledged it
 * ({@code acks=all}, idempotent producer). If Kafka cannot take it in time the caller gets a 503 with
 * {@code Retry-After}: a decision is never answered without its audit record.
 *
 * <p>"In time" is the producer's own bound ({@link KafkaClients#durableProducer}: {@code max.block.ms} for
 * {@code send}, then {@code delivery.timeout.ms}, after which the producer fails the send). The wait for the
 * acknowledgement is therefore untimed: a timed wait would schedule a timer per decision, which costs a
 * measurable share of the request path's CPU with virtual threads.
 */
public final class AuditPublisher {
    private static final Logger LOG = Logger.getLogger(AuditPublisher.class.getName());

    private final Producer<String, byte[]> producer;
    private final Tracer tracer;
    private final String topic;
    private final SinkCounters counters;
    private final Map<Integer, Long> lastOffsets = new ConcurrentHashMap<>();
    private final LongAdder failures = new LongAdder();

    /**
     * @param producer a producer whose {@code delivery.timeout.ms} bounds the wait, such as
     *                 {@link KafkaClients#durableProducer}
     */
    public AuditPublisher(Producer<String, byte[]> producer, String topic, SinkCounters counters) {
        this(producer, topic, counters, OpenTelemetry.noop().getTracer("warden"));
    }

    /**
     * As the other constructor, with a producer span {@code warden.audit publish} per entry whose context the
     * record carries to the pipeline and the sinks.
     */
    public AuditPublisher(Producer<String, byte[]> producer, String topic, SinkCounters counters, Tracer tracer) {
        this.tracer = tracer;
        this.producer = producer;
        this.topic = topic;
        this.counters = counters;
    }

    /** The highest offset acknowledged per partition of the audit topic, for read-your-writes. */
    public Map<Integer, Long> acknowledgedOffsets() {
        return Map.copyOf(lastOffsets);
    }

    /**
     * Publishes {@code entry} keyed by its agent id and returns once acknowledged.
     *
     * @throws UnavailableException when Kafka does not acknowledge in time
     */
    public RecordMetadata publish(AuditEntry entry) {
        Span span = tracer.spanBuilder("warden.audit publish")
                .setSpanKind(SpanKind.PRODUCER)
                .startSpan();
        try (Scope ignored = span.makeCurrent()) {
            return acknowledged(send(entry));
        } catch (InterruptedException | ExecutionException | RuntimeException e) {
            throw failed(e, span, "audit entry");
        } finally {
            span.end();
        }
    }

    /**
     * Publishes {@code entries} together (sent at once, so the producer batches them) and returns once Kafka has
     * acknowledged every one.
     *
     * @throws UnavailableException when Kafka does not acknowledge them all in time
     */
    public void publishAll(List<AuditEntry> entries) {
        if (entries.size() == 1) {
            publish(entries.getFirst());
            return;
        }
        Span span = tracer.spanBuilder("warden.audit publish")
                .setSpanKind(SpanKind.PRODUCER)
                .setAttribute("warden.audit.entries", entries.size())
                .startSpan();
        try (Scope ignored = span.makeCurrent()) {
            List<Future<RecordMetadata>> sent = new ArrayList<>(entries.size());
            for (AuditEntry entry : entries) {
                sent.add(send(entry));
            }
            for (Future<RecordMetadata> future : sent) {
                acknowledged(future);
            }
        } catch (InterruptedException | ExecutionException | RuntimeException e) {
            throw failed(e, span, "audit entries");
        } finally {
            span.end();
        }
    }

    /** Sends {@code entry}, keyed by its agent id and carrying the current trace context. */
    private Future<RecordMetadata> send(AuditEntry entry) {
        ProducerRecord<String, byte[]> record =
                new ProducerRecord<>(topic, entry.agentId(), AuditEntryCodec.encode(entry));
        TraceHeaders.inject(Context.current(), record.headers());
        return producer.send(record);
    }

    /** Waits for Kafka's acknowledgement of a sent entry and counts it. */
    private RecordMetadata acknowledged(Future<RecordMetadata> sent) throws InterruptedException, ExecutionException {
        RecordMetadata acked = sent.get();
        counters.emitted();
        lastOffsets.merge(acked.partition(), acked.offset(), Math::max);
        return acked;
    }

    /** Counts a failed publication and gives the 503 its caller answers with. */
    private UnavailableException failed(Exception e, Span span, String what) {
        failures.increment();
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        } else {
            LOG.log(Level.WARNING, what + " not acknowledged by Kafka: " + e.getMessage());
            span.setStatus(StatusCode.ERROR);
        }
        return unavailable();
    }

    /** Audit entries Kafka did not acknowledge (each answered 503, no decision made). */
    public long failureCount() {
        return failures.sum();
    }

    private static UnavailableException unavailable() {
        return new UnavailableException("the audit log is unavailable; no decision was made", Duration.ofSeconds(1));
    }
}
