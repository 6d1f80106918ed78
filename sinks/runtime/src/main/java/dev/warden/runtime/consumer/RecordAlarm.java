package dev.warden.runtime.consumer;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Rings when records are readable at or past given positions, and hands them over, at almost no cost while none
 * are: a consumer outside any group that asks the broker for a single byte and lets each request wait
 * {@link #LONG_POLL} there. A {@link SinkWorker} that has been idle pauses its own batched fetches (which the broker
 * answers every few milliseconds while nothing comes) and {@linkplain #arm arms} this alarm at its positions; the
 * broker answers the alarm's request the moment a record is committed, and the worker stores the records the alarm
 * read, then fetches on its own again. No record is missed or read twice: the alarm reads from the worker's own
 * positions (not from the log's end), in the same isolation, and the worker moves its positions past what it was
 * handed only once it stores them.
 *
 * <p>Thread-safety: {@link #arm}, {@link #disarm}, {@link #await} and {@link #close} may be called from any
 * thread; the consumer is used by the alarm's own thread only.
 */
final class RecordAlarm implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(RecordAlarm.class.getName());
    /**
     * How long the broker holds the alarm's request while nothing comes: its only cost while armed. The alarm is a
     * {@linkplain ConsumerLoop#reader reader} with its own loop; the consumers that readiness and shutdown wait on
     * (the sink workers' groups, the Streams applications) keep their short waits: a consumer's close waits for a
     * request the broker holds.
     */
    static final Duration LONG_POLL = ConsumerLoop.READER_WAIT;

    private final String name;
    private final Consumer<String, byte[]> consumer;
    private final Thread thread;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** The positions to watch; null when disarmed. Guarded by {@link #lock}. */
    private Map<TopicPartition, Long> watched;
    /** Bumped by every arm and disarm, so that a ring for an earlier arming is not taken for this one. */
    private long generation;
    /** What the current arming rang with (possibly nothing, after a failure); null until it rings. */
    private ConsumerRecords<String, byte[]> rung;

    private volatile boolean running = true;

    /**
     * @param name     the alarm's thread, and its name in logs
     * @param clientId the alarm consumer's client id
     * @param maxPoll  most records handed over at a ring (the worker's batch size)
     */
    RecordAlarm(String name, String clientId, String bootstrap, int maxPoll) {
        this.name = name;
        Map<String, Object> p = new HashMap<>(ConsumerLoop.readerSettings(bootstrap, clientId));
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPoll);
        this.consumer = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
        this.thread = Thread.ofPlatform().name(name).daemon().unstarted(this::run);
        thread.start();
    }

    /** Watches {@code positions}: rings once a record is readable at or past one of them. */
    void arm(Map<TopicPartition, Long> positions) {
        lock.lock();
        try {
            watched = Map.copyOf(positions);
            generation++;
            rung = null;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        consumer.wakeup(); // a poll on the previous positions ends; the next one reads these
    }

    /** Stops watching (the worker fetches again on its own). */
    void disarm() {
        lock.lock();
        try {
            watched = null;
            generation++;
            rung = null;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        consumer.wakeup();
    }

    /**
     * Waits at most {@code timeout} for the current arming to ring: the records it read from the armed positions
     * on (none when the alarm failed: the worker must fetch on its own), or null when it has not rung.
     */
    ConsumerRecords<String, byte[]> await(Duration timeout) throws InterruptedException {
        long nanos = timeout.toNanos();
        lock.lock();
        try {
            while (rung == null && watched != null && nanos > 0) {
                nanos = changed.awaitNanos(nanos);
            }
            return rung;
        } finally {
            lock.unlock();
        }
    }

    private void run() {
        boolean assigned = false;
        long appliedGeneration = -1;
        try {
            while (running) {
                Map<TopicPartition, Long> positions;
                long armedGeneration;
                lock.lock();
                try {
                    while (running && !assigned && (watched == null || rung != null)) {
                        changed.await(1, TimeUnit.SECONDS);
                    }
                    positions = watched == null || rung != null ? null : watched;
                    armedGeneration = generation;
                } finally {
                    lock.unlock();
                }
                try {
                    if (positions == null) {
                        consumer.assign(List.of()); // nothing to watch: no request to the broker at all
                        assigned = false;
                        continue;
                    }
                    if (armedGeneration != appliedGeneration) {
                        consumer.assign(positions.keySet());
                        positions.forEach(consumer::seek);
                        assigned = true;
                        appliedGeneration = armedGeneration;
                    }
                    ConsumerRecords<String, byte[]> records = consumer.poll(LONG_POLL.multipliedBy(3));
                    if (!records.isEmpty()) {
                        ring(armedGeneration, records);
                    }
                } catch (WakeupException e) {
                    // re-armed, disarmed or closing: read the state again
                } catch (RuntimeException e) {
                    // Ring anyway: a worker that fetches on its own is always correct, only busier.
                    LOG.log(Level.WARNING, name + " could not watch " + positions + "; waking its sink", e);
                    ring(armedGeneration, ConsumerRecords.empty());
                    appliedGeneration = -1;
                    Thread.sleep(1_000);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            consumer.close(Duration.ZERO); // no group, nothing to commit: never wait for the parked request
        }
    }

    private void ring(long armedGeneration, ConsumerRecords<String, byte[]> records) {
        lock.lock();
        try {
            if (generation == armedGeneration) {
                rung = records;
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        running = false;
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        consumer.wakeup();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
