package dev.warden.runtime.consumer;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;

/**
 * What one sink worker reports about itself: batches that keep failing, a lag that keeps growing, and the
 * records it dead-lettered. The worker records; health checks and metrics read. Thread-safe.
 *
 * <p>Degraded means either of: the last {@value #FAILING_AFTER} store attempts in a row failed (the sink is
 * retrying and writing nothing), or the lag grew at every one of the last {@value #GROWTH_SAMPLES} samples
 * (taken at least {@link #SAMPLE_EVERY} apart) and is above {@value #LAG_FLOOR} records (the sink is falling
 * behind, not just busy).
 */
public final class SinkHealth {
    static final int FAILING_AFTER = 3;
    static final int GROWTH_SAMPLES = 6;
    static final long LAG_FLOOR = 1_000;
    static final Duration SAMPLE_EVERY = Duration.ofSeconds(5);

    private final String sink;
    private final LongAdder deadLettered = new LongAdder();
    private final LongAdder failedBatches = new LongAdder();
    private final LongAdder storedBatches = new LongAdder();
    private final LongAdder storedRecords = new LongAdder();
    private final LongAdder storeNanos = new LongAdder();
    private final Deque<Long> lagSamples = new ArrayDeque<>();
    private long lastSampleNanos;
    private volatile long lag;
    private volatile int consecutiveFailures;
    private volatile String lastError = "";
    private volatile java.util.function.LongConsumer storeTimes = nanos -> {};
    /** The timestamp (ms) of the oldest record read and not yet stored; 0 when none waits. */
    private volatile long oldestPendingMillis;

    private volatile boolean paused;
    /** The topic's retention; zero when unknown (or unlimited). */
    private volatile Duration retention = Duration.ZERO;
    /** The share of the retention past which a backlog is reported: it will be lost if it keeps growing. */
    static final double NEAR_RETENTION = 0.8;

    public SinkHealth(String sink) {
        this.sink = sink;
    }

    /** The sink's name. */
    public String sink() {
        return sink;
    }

    /** A batch was stored. */
    public void stored() {
        consecutiveFailures = 0;
    }

    /** A batch of {@code records} was stored, in {@code nanos} from handing it to the store to its commit. */
    public void stored(long records, long nanos) {
        stored();
        storedBatches.increment();
        storedRecords.add(records);
        storeNanos.add(nanos);
        storeTimes.accept(nanos);
    }

    /** Hands each stored batch's time (nanoseconds) to {@code listener} too, e.g. a histogram; one at a time. */
    public void onStoreTime(java.util.function.LongConsumer listener) {
        this.storeTimes = listener;
    }

    /** Batches stored so far (with their size and time: {@link #storedRecordCount}, {@link #storeNanos}). */
    public long storedBatchCount() {
        return storedBatches.sum();
    }

    /** Records in the batches stored so far, dead-lettered ones included. */
    public long storedRecordCount() {
        return storedRecords.sum();
    }

    /** Time spent storing the batches stored so far. */
    public long storeNanos() {
        return storeNanos.sum();
    }

    /** A store failed with {@code error} (it is retried). */
    public void failed(String error) {
        failedBatches.increment();
        lastError = error == null ? "unknown" : error;
        consecutiveFailures++;
    }

    /** {@code n} records were dead-lettered. */
    public void deadLettered(long n) {
        deadLettered.add(n);
    }

    /**
     * Records the lag of {@code consumer}'s assignment as the consumer last saw it (no request to the broker);
     * call after each poll.
     */
    public void sampleLag(Consumer<?, ?> consumer) {
        long total = 0;
        for (TopicPartition tp : consumer.assignment()) {
            total += consumer.currentLag(tp).orElse(0);
        }
        lag(total, System.nanoTime());
    }

    /** Records the current lag; samples are kept at most every {@link #SAMPLE_EVERY}. */
    public synchronized void lag(long records, long nowNanos) {
        lag = records;
        if (!lagSamples.isEmpty() && nowNanos - lastSampleNanos < SAMPLE_EVERY.toNanos()) {
            return;
        }
        lastSampleNanos = nowNanos;
        lagSamples.addLast(records);
        while (lagSamples.size() > GROWTH_SAMPLES + 1) {
            lagSamples.removeFirst();
        }
    }

    /** Records with timestamp {@code firstMillis} (and later) were read and wait to be stored. */
    public void pending(long firstMillis) {
        if (firstMillis <= 0) {
            oldestPendingMillis = 0;
        } else if (oldestPendingMillis == 0) {
            oldestPendingMillis = firstMillis;
        }
    }

    /** A batch was stored: nothing read waits any more. */
    public void delivered() {
        oldestPendingMillis = 0;
    }

    /**
     * How old the oldest record read and not yet stored is, at {@code nowMillis}: the sink's lag in time (0 when
     * nothing waits).
     */
    public long oldestPendingAgeMillis(long nowMillis) {
        long oldest = oldestPendingMillis;
        return oldest == 0 ? 0 : Math.max(0, nowMillis - oldest);
    }

    /** The administrator paused (or resumed) the sink. */
    public void paused(boolean paused) {
        this.paused = paused;
    }

    /** The topic's retention, so that a backlog that nears it is reported. */
    public void retention(Duration retention) {
        this.retention = retention;
    }

    /** Records dead-lettered so far by this sink. */
    public long deadLetteredCount() {
        return deadLettered.sum();
    }

    /** Batches whose store failed (and were retried) so far. */
    public long failedBatchCount() {
        return failedBatches.sum();
    }

    /** The latest lag seen, in records. */
    public long currentLag() {
        return lag;
    }

    /** Why the sink is degraded, or empty when it is healthy. */
    public synchronized Optional<String> degradedReason() {
        if (paused) {
            return Optional.of("paused by the administrator");
        }
        long age = oldestPendingAgeMillis(System.currentTimeMillis());
        if (!retention.isZero() && age > retention.toMillis() * NEAR_RETENTION) {
            return Optional.of("backlog nears the topic's retention: the oldest undelivered entry is "
                    + Duration.ofMillis(age).toSeconds() + " s old, retention " + retention.toSeconds() + " s");
        }
        if (consecutiveFailures >= FAILING_AFTER) {
            return Optional.of("failing: " + consecutiveFailures + " batches in a row, last error: " + lastError);
        }
        if (lagSamples.size() > GROWTH_SAMPLES && lag > LAG_FLOOR) {
            Long previous = null;
            for (Long sample : lagSamples) {
                if (previous != null && sample <= previous) {
                    return Optional.empty();
                }
                previous = sample;
            }
            return Optional.of("falling behind: lag grew at each of the last " + GROWTH_SAMPLES + " samples, now " + lag
                    + " records");
        }
        return Optional.empty();
    }
}
