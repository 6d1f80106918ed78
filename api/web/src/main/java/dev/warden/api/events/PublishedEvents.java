package dev.warden.api.events;

import dev.warden.api.errors.UnavailableException;
import dev.warden.api.kafka.KafkaClients;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.pipeline.contract.StreamEventCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Events that go with no change in PostgreSQL, published straight to {@code warden.events} (D198): the token
 * endpoint's {@code auth.signin} of a token issued to agents, whose token stores nothing (D185), and its
 * {@code auth.failed}. No row is written for them. An event that belongs to a change goes through the
 * {@link EventOutbox}, in the change's transaction.
 *
 * <p>Callers are published in groups: one thread sends every event queued while the previous group was in flight,
 * in one produce request ({@code acks=all}, idempotent producer), and each caller returns once Kafka has
 * acknowledged its event. A group's size follows the load, with no timer: one caller alone is sent at once. If Kafka
 * cannot take a group in time (the producer's {@code max.block.ms}, then {@code delivery.timeout.ms}), or
 * {@value #QUEUE} events already wait, the caller gets a 503 with {@code Retry-After}: nothing is answered whose event
 * could still be lost. Thread-safe.
 */
public final class PublishedEvents implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(PublishedEvents.class.getName());
    private static final int MAX_GROUP = 512;
    private static final int QUEUE = 4096;
    private static final Duration RETRY_AFTER = Duration.ofSeconds(1);
    /** How long the idle publisher sleeps before it looks whether it is closing; an event or close wakes it. */
    private static final Duration IDLE_WAIT = Duration.ofSeconds(10);

    private record Pending(ProducerRecord<String, byte[]> record, CompletableFuture<Void> acknowledged) {}

    /** Queued by {@link #close} to end the publisher's wait at once; never sent. */
    private static final Pending WAKE = new Pending(null, new CompletableFuture<>());

    private final Producer<String, byte[]> producer;
    private final String topic;
    private final BlockingQueue<Pending> queue = new ArrayBlockingQueue<>(QUEUE);
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread publisher;

    /**
     * @param producer a producer of this publisher's own ({@link #start} makes one), whose {@code flush()} sends a
     *                 group and whose {@code delivery.timeout.ms} bounds the wait for its acknowledgement
     * @param topic    {@code warden.events}
     */
    PublishedEvents(Producer<String, byte[]> producer, String topic) {
        this.producer = producer;
        this.topic = topic;
        this.publisher =
                Thread.ofPlatform().name("warden-published-events").daemon().start(this::run);
    }

    /** A publisher to {@code topic} with a producer of its own. */
    public static PublishedEvents start(String bootstrap, String clientId, String topic) {
        return new PublishedEvents(KafkaClients.groupProducer(bootstrap, clientId), topic);
    }

    /**
     * Publishes {@code event}, keyed by its subject, and returns once Kafka has acknowledged it.
     *
     * @throws IllegalArgumentException when the event's type changes access (it belongs with its change, in the
     *                                  outbox, which also tells every instance's listener)
     * @throws UnavailableException     when Kafka does not acknowledge it in time, too many events wait, or this
     *                                  publisher is closed
     */
    public void publish(StreamEvent.Draft event) {
        if (event.type().changesAccess()) {
            throw new IllegalArgumentException(event.type().wireName() + " goes with its change, through the outbox");
        }
        Pending pending = new Pending(
                new ProducerRecord<>(topic, event.subjectKey(), StreamEventCodec.encode(event)),
                new CompletableFuture<>());
        if (!running.get() || !queue.offer(pending)) {
            throw new UnavailableException("too many events are being recorded; try again", RETRY_AFTER);
        }
        try {
            pending.acknowledged().join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        }
    }

    private void run() {
        List<Pending> group = new ArrayList<>(MAX_GROUP);
        while (running.get() || !queue.isEmpty()) {
            try {
                Pending first = queue.poll(IDLE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                group.add(first);
                queue.drainTo(group, MAX_GROUP - 1);
                group.remove(WAKE);
                if (!group.isEmpty()) {
                    send(group);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } finally {
                group.clear();
            }
        }
        fail(stopping());
    }

    /** Sends {@code group} in one request and answers each caller with its event's acknowledgement. */
    private void send(List<Pending> group) {
        List<Future<RecordMetadata>> sent = new ArrayList<>(group.size());
        try {
            for (Pending p : group) {
                sent.add(producer.send(p.record()));
            }
            producer.flush();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, group.size() + " events not sent to Kafka: " + e.getMessage());
            group.forEach(p -> p.acknowledged().completeExceptionally(unavailable()));
            return;
        }
        for (int i = 0; i < group.size(); i++) {
            Pending p = group.get(i);
            try {
                sent.get(i).get();
                p.acknowledged().complete(null);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.acknowledged().completeExceptionally(unavailable());
            } catch (ExecutionException e) {
                LOG.log(Level.WARNING, "event not acknowledged by Kafka: " + e.getCause());
                p.acknowledged().completeExceptionally(unavailable());
            }
        }
    }

    private void fail(RuntimeException reason) {
        List<Pending> left = new ArrayList<>();
        queue.drainTo(left);
        left.remove(WAKE);
        left.forEach(p -> p.acknowledged().completeExceptionally(reason));
    }

    private static UnavailableException unavailable() {
        return new UnavailableException("the event log is unavailable; nothing was issued", RETRY_AFTER);
    }

    private static UnavailableException stopping() {
        return new UnavailableException("the server is stopping", RETRY_AFTER);
    }

    /** Publishes what is queued, then stops; later calls to {@link #publish} are refused. */
    @Override
    public void close() {
        running.set(false);
        queue.offer(WAKE); // a full queue needs no waking
        try {
            publisher.join(Duration.ofSeconds(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        publisher.interrupt();
        fail(stopping());
        producer.close(Duration.ofSeconds(5));
    }
}
