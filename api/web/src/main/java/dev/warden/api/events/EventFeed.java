package dev.warden.api.events;

import dev.warden.pipeline.contract.AuditBatch;
import dev.warden.pipeline.contract.EventIds;
import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.StreamEventCodec;
import dev.warden.pipeline.contract.TraceHeaders;
import dev.warden.runtime.consumer.ConsumerLoop;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import io.opentelemetry.context.Context;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * This instance's live view of {@code warden.events}: reads the (single-partition) topic from its end and
 * hands every committed event, with its position as id, to the subscribers, in order, on one thread: the SSE hub,
 * and the second path of cache invalidation when another instance changes agents or delegations (the first is
 * {@link AccessChanges}). Events are handed on undecoded but for their type ({@link FeedEvent}). Subscribers must
 * be quick and must not throw.
 */
public final class EventFeed implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(EventFeed.class.getName());
    private static final Duration[] DELAY_BUCKETS = {
        Duration.ofMillis(5),
        Duration.ofMillis(10),
        Duration.ofMillis(25),
        Duration.ofMillis(50),
        Duration.ofMillis(100),
        Duration.ofMillis(250),
        Duration.ofMillis(500),
        Duration.ofSeconds(1),
        Duration.ofSeconds(5)
    };

    private final TopicPartition partition;
    private final List<Consumer<FeedEvent>> subscribers = new CopyOnWriteArrayList<>();
    private final ConsumerLoop<String, byte[]> loop;
    private final KafkaClientMetrics meters;
    private volatile Timer delay;
    private volatile long startPosition = -1;

    public EventFeed(String bootstrap, String topic, String clientId) {
        // Committed records only: exactly once, in order. Records behind an open transaction (the pipeline role's
        // budget and anomaly events, committed in the loop turn that made them: D193) wait for its commit.
        KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(
                ConsumerLoop.readerSettings(bootstrap, clientId),
                new StringDeserializer(),
                new ByteArrayDeserializer());
        this.partition = new TopicPartition(topic, 0);
        this.meters = new KafkaClientMetrics(consumer);
        this.loop = ConsumerLoop.reader("warden-event-feed", consumer, new Feed());
    }

    /**
     * The feed's metrics, to bind to a registry: the consumer's own ({@code kafka_consumer_*}: fetch rate, records
     * lag, …) and {@code warden_events_feed_delay_seconds}, the time from each event's write to {@code warden.events}
     * (its record timestamp; for an {@code audit} event, its decision's audit record) to this instance reading it:
     * what an SSE client waits, less the write to its socket.
     */
    public MeterBinder meters() {
        return registry -> {
            meters.bindTo(registry);
            delay = Timer.builder("warden.events.feed.delay")
                    .description(
                            "From an event's write to warden.events (its record timestamp) to this instance reading it")
                    .serviceLevelObjectives(DELAY_BUCKETS)
                    .register(registry);
        };
    }

    /** Adds a subscriber for events read from now on. */
    public void subscribe(Consumer<FeedEvent> subscriber) {
        subscribers.add(subscriber);
    }

    /** Starts reading at the topic's current end; returns once positioned. */
    public void start() {
        loop.start();
        try {
            if (!loop.awaitStarted(Duration.ofSeconds(30))) {
                throw new IllegalStateException("event feed could not reach Kafka");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The position of the last event before the first one this feed delivers (valid after {@link #start()}). */
    public long startPosition() {
        return startPosition;
    }

    /** Positions at the topic's end, then delivers every event read. */
    private final class Feed implements ConsumerLoop.Handler<String, byte[]> {
        @Override
        public void start(org.apache.kafka.clients.consumer.Consumer<String, byte[]> consumer) {
            consumer.assign(List.of(partition));
            consumer.seekToEnd(List.of(partition));
            startPosition = EventIds.record(consumer.position(partition) - 1);
        }

        @Override
        public void handle(
                ConsumerRecords<String, byte[]> records,
                org.apache.kafka.clients.consumer.Consumer<String, byte[]> consumer) {
            records.forEach(EventFeed.this::deliver);
        }
    }

    private void deliver(ConsumerRecord<String, byte[]> record) {
        if (AuditBatch.isBatch(record.headers())) {
            deliverBatch(record);
            return;
        }
        timeDelay(record.timestamp());
        Optional<EventType> type =
                record.value() == null ? Optional.empty() : StreamEventCodec.peekType(record.value());
        if (type.isEmpty()) {
            LOG.warning("skipping malformed event at offset " + record.offset() + ": no known type");
            return;
        }
        hand(FeedEvent.record(
                record.offset(),
                type.get(),
                record.value(),
                TraceHeaders.present(record.headers()) ? TraceHeaders.extract(record.headers()) : Context.root()));
    }

    /** Each entry of an audit batch, as its own event (decoded later, by whoever needs more than its type). */
    private void deliverBatch(ConsumerRecord<String, byte[]> record) {
        List<AuditBatch.Entry> entries;
        try {
            entries = AuditBatch.decode(record.value());
        } catch (IllegalArgumentException e) {
            LOG.warning("skipping malformed audit batch at offset " + record.offset() + ": " + e.getMessage());
            return;
        }
        for (int i = 0; i < entries.size(); i++) {
            AuditBatch.Entry entry = entries.get(i);
            timeDelay(entry.timestamp());
            hand(FeedEvent.batchEntry(
                    record.offset(),
                    i,
                    entry,
                    entry.traceparent().isEmpty() ? Context.root() : TraceHeaders.extract(entry.traceparent())));
        }
    }

    private void timeDelay(long writtenAt) {
        Timer timer = delay;
        if (timer != null) {
            timer.record(Math.max(0, System.currentTimeMillis() - writtenAt), TimeUnit.MILLISECONDS);
        }
    }

    private void hand(FeedEvent event) {
        for (Consumer<FeedEvent> subscriber : subscribers) {
            try {
                subscriber.accept(event);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "event subscriber failed", e);
            }
        }
    }

    /** The state of this consumer's loop, for health. */
    public ConsumerLoop.Health health() {
        return loop.health();
    }

    @Override
    public void close() {
        meters.close();
        loop.close();
    }
}
