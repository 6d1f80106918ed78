package dev.warden.runtime.consumer;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.WakeupException;

/**
 * The one poll loop every Warden consumer runs (sink workers, the webhook worker, the API's event feed, quota
 * replies and dashboard view): its own platform thread polls and hands each batch to a {@link Handler}, and
 * {@link #close()} wakes it, lets the handler settle and closes the consumer.
 *
 * <p>The loop outlives bad luck: a record that cannot be deserialized is skipped (logged and counted); a poll
 * that fails otherwise is retried after a pause; a batch whose handler throws is delivered again after a pause
 * (the consumer seeks back to the batch's first offsets), so handlers must tolerate redelivery or not throw. A
 * consumer that stops is worse than one that retries: a stopped event feed would stop revocations reaching
 * this instance. {@link #health()} tells whether it has started, is running, and what failed last.
 *
 * <p>Thread-safety: the consumer is used only by the loop's thread (the handler runs there);
 * {@link #start()}, {@link #close()} and {@link #health()} may be called from any thread.
 *
 * @param <K> record key type
 * @param <V> record value type
 */
public final class ConsumerLoop<K, V> implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ConsumerLoop.class.getName());
    private static final Duration FAILURE_PAUSE = Duration.ofSeconds(1);

    /** What a consumer does; every method runs on the loop's thread. */
    public interface Handler<K, V> {
        /** Subscribes or assigns and seeks; called once before the first poll. */
        void start(Consumer<K, V> consumer);

        /** Handles one poll's records (possibly none: an idle tick, for timers). */
        void handle(ConsumerRecords<K, V> records, Consumer<K, V> consumer);

        /**
         * How long the next poll may wait for records; {@code configured} (the loop's) unless the handler waits
         * elsewhere (a dozing sink worker waits on its alarm and polls without waiting).
         */
        default Duration nextPollTimeout(Duration configured) {
            return configured;
        }

        /** Settles and commits what is finished; called once before the consumer closes. */
        default void stop(Consumer<K, V> consumer) {}
    }

    /** A snapshot of the loop's state. */
    public record Health(boolean started, boolean running, long failures, Optional<String> lastFailure) {}

    private final String name;
    private final Consumer<K, V> consumer;
    private final Duration pollTimeout;
    private final Handler<K, V> handler;
    private final Thread thread;
    private final CountDownLatch started = new CountDownLatch(1);
    private final LongAdder failures = new LongAdder();
    private volatile boolean running = true;
    private volatile Optional<String> lastFailure = Optional.empty();

    /**
     * @param name the thread's name and the loop's name in logs
     */
    public ConsumerLoop(String name, Consumer<K, V> consumer, Duration pollTimeout, Handler<K, V> handler) {
        this.name = name;
        this.consumer = consumer;
        this.pollTimeout = pollTimeout;
        this.handler = handler;
        this.thread = Thread.ofPlatform().name(name).daemon().unstarted(this::run);
    }

    /** Starts the loop's thread. */
    public void start() {
        thread.start();
    }

    /**
     * Waits until the handler's {@link Handler#start} has run.
     *
     * @return false when that did not happen within {@code timeout}
     */
    public boolean awaitStarted(Duration timeout) throws InterruptedException {
        return started.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The loop's state. */
    public Health health() {
        return new Health(started.getCount() == 0, running && thread.isAlive(), failures.sum(), lastFailure);
    }

    private void run() {
        try {
            startHandler();
            while (running) {
                ConsumerRecords<K, V> records;
                try {
                    records = consumer.poll(handler.nextPollTimeout(pollTimeout));
                } catch (RecordDeserializationException e) {
                    skip(e);
                    continue;
                } catch (WakeupException e) {
                    throw e;
                } catch (RuntimeException e) {
                    failed("failed to poll", e);
                    continue;
                }
                try {
                    handler.handle(records, consumer);
                } catch (WakeupException e) {
                    throw e;
                } catch (RuntimeException e) {
                    failed("failed to handle a batch of " + records.count(), e);
                    redeliver(records);
                }
            }
        } catch (WakeupException e) {
            // closing
        } finally {
            try {
                handler.stop(consumer);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, name + ": could not settle on close: " + e.getMessage());
            }
            consumer.close(Duration.ofSeconds(5));
        }
    }

    private void startHandler() {
        while (running) {
            try {
                handler.start(consumer);
                started.countDown();
                return;
            } catch (WakeupException e) {
                throw e;
            } catch (RuntimeException e) {
                failed("could not start", e);
            }
        }
    }

    /** Seeks back to the first offset of each partition in {@code records}, so the batch is polled again. */
    private void redeliver(ConsumerRecords<K, V> records) {
        for (TopicPartition tp : records.partitions()) {
            if (consumer.assignment().contains(tp)) {
                consumer.seek(tp, records.records(tp).getFirst().offset());
            }
        }
    }

    private void skip(RecordDeserializationException e) {
        failures.increment();
        lastFailure = Optional.of("skipped an undeserializable record at " + e.topicPartition() + "@" + e.offset());
        LOG.warning(name + ": " + lastFailure.get() + ": " + e.getMessage());
        consumer.seek(e.topicPartition(), e.offset() + 1);
    }

    private void failed(String what, RuntimeException e) {
        failures.increment();
        lastFailure = Optional.of(what + ": " + e.getMessage());
        LOG.log(Level.WARNING, name + " " + what + "; retrying in " + FAILURE_PAUSE.toMillis() + " ms", e);
        try {
            Thread.sleep(FAILURE_PAUSE);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    /** Stops the loop: wakes the poll, lets the handler settle, closes the consumer (waits up to 10 s). */
    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
