package dev.warden.runtime.consumer;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
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
 * <p>A {@linkplain #reader reader} is a consumer outside any group that follows partitions it assigns itself (the
 * event feed, the dashboard views). It asks the broker for a single byte and lets the broker hold each fetch
 * {@link #READER_WAIT}: the broker answers soon after a record is committed, and an idle reader costs the broker one
 * request per wait instead of two a second. Its loop polls as long, and it closes without waiting for the fetch the
 * broker holds (it has no offsets to commit and no group to leave). The quota replies are not a reader: as one,
 * quota-limited decisions took 6-8 ms longer at the median (D192).
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
    /**
     * How long the broker holds a {@linkplain #reader reader}'s fetch while nothing comes, and how long its loop's
     * poll waits.
     */
    public static final Duration READER_WAIT = Duration.ofSeconds(10);

    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

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
    private final Duration closeTimeout;
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
        this(name, consumer, pollTimeout, CLOSE_TIMEOUT, handler);
    }

    private ConsumerLoop(
            String name, Consumer<K, V> consumer, Duration pollTimeout, Duration closeTimeout, Handler<K, V> handler) {
        this.name = name;
        this.consumer = consumer;
        this.pollTimeout = pollTimeout;
        this.closeTimeout = closeTimeout;
        this.handler = handler;
        this.thread = Thread.ofPlatform().name(name).daemon().unstarted(this::run);
    }

    /**
     * A loop for a reader outside any group, whose consumer was made with {@link #readerSettings}: it polls for
     * {@link #READER_WAIT} and closes without waiting.
     *
     * @param name the thread's name and the loop's name in logs
     */
    public static <K, V> ConsumerLoop<K, V> reader(String name, Consumer<K, V> consumer, Handler<K, V> handler) {
        return new ConsumerLoop<>(name, consumer, READER_WAIT, Duration.ZERO, handler);
    }

    /**
     * The settings of a reader's consumer: outside any group, committed records only (in order, each once; records
     * behind an open transaction wait for its commit), answered as soon as one byte is there, held by the broker
     * {@link #READER_WAIT} otherwise.
     */
    public static Map<String, Object> readerSettings(String bootstrap, String clientId) {
        return Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ConsumerConfig.CLIENT_ID_CONFIG,
                clientId,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed",
                ConsumerConfig.FETCH_MIN_BYTES_CONFIG,
                1,
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG,
                (int) READER_WAIT.toMillis());
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
            consumer.close(closeTimeout);
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

    /**
     * Stops the loop: wakes the poll, lets the handler settle, closes the consumer (waits up to 10 s; a reader
     * does not wait for its held fetch).
     */
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
