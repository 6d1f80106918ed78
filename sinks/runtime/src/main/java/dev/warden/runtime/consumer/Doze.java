package dev.warden.runtime.consumer;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * The doze of an idle group consumer whose fetches are batched ({@code fetch.min.bytes} over one record), which the
 * broker would otherwise answer empty every {@code fetch.max.wait.ms} while nothing comes. After {@link #AFTER} with
 * nothing polled and nothing left to settle, the consumer's loop {@linkplain #beginIfIdle begins a doze}: its
 * assignment is paused and a {@link RecordAlarm} armed at its positions, which costs the broker one request per
 * {@link RecordAlarm#LONG_POLL}. The loop then {@linkplain #await waits on the alarm} a tick at a time instead of
 * polling; the first records past those positions ring it and are handed over, and the loop handles them at once
 * (without its batch wait), {@linkplain #wake wakes} and fetches on its own again. A doze also ends after
 * {@link #CAP}, and whenever the loop wakes it (a rebalance, an operator's control).
 *
 * <p>Used by the polling thread of one consumer only ({@link #isDozing} may be read from any thread).
 */
public final class Doze implements AutoCloseable {
    /** Idle this long (nothing polled, nothing to settle), a consumer dozes. */
    public static final Duration AFTER = Duration.ofSeconds(1);
    /** The longest doze: then the consumer fetches on its own again, and may doze again once idle. */
    public static final Duration CAP = Duration.ofMinutes(5);
    /**
     * How long one {@link #await} waits for a ring: how often a dozing loop turns to poll (a rebalance) and to look
     * at whatever may end its doze; a ring ends the wait at once.
     */
    public static final Duration TICK = Duration.ofSeconds(1);

    private final String name;
    private final String clientId;
    private final String bootstrap;
    private final int maxPoll;
    private final Duration after;
    private final Duration cap;
    /** Rings when a record comes while dozing; made at the first doze (read by {@link #release} on any thread). */
    private volatile RecordAlarm alarm;
    /** Whether the consumer dozes now (its assignment paused, the alarm armed). */
    private volatile boolean dozing;
    /** When something was last polled or settled. */
    private long activeNanos = System.nanoTime();
    /** When the current doze ends at the latest. */
    private long endsNanos;

    /**
     * @param name      the alarm's thread, and its name in logs
     * @param clientId  the alarm consumer's client id
     * @param maxPoll   most records handed over at a ring (the consumer's batch size)
     * @param after     idle this long, the consumer dozes (null: never)
     * @param cap       the longest doze
     */
    public Doze(String name, String clientId, String bootstrap, int maxPoll, Duration after, Duration cap) {
        this.name = name;
        this.clientId = clientId;
        this.bootstrap = bootstrap;
        this.maxPoll = maxPoll;
        this.after = after;
        this.cap = cap;
    }

    /** Whether the consumer dozes now: its fetches paused, waiting for a record to ring the alarm. */
    public boolean isDozing() {
        return dozing;
    }

    /** The poll timeout of the consumer's next loop turn: none while dozing (it waits on the alarm instead). */
    public Duration pollTimeout(Duration configured) {
        return dozing ? Duration.ZERO : configured;
    }

    /** Something was polled or settled now: the idle time starts again. */
    public void active() {
        activeNanos = System.nanoTime();
    }

    /**
     * Dozes when the consumer has been idle for {@code after}: pauses its assignment and arms the alarm at its
     * positions. Call it only when nothing is left to settle.
     *
     * @return whether a doze began
     */
    public boolean beginIfIdle(Consumer<String, byte[]> kafka) {
        long now = System.nanoTime();
        if (dozing || after == null || now - activeNanos < after.toNanos()) {
            return false;
        }
        Set<TopicPartition> assignment = kafka.assignment();
        if (assignment.isEmpty()) {
            return false;
        }
        Map<TopicPartition, Long> positions = new HashMap<>();
        try {
            for (TopicPartition tp : assignment) {
                positions.put(tp, kafka.position(tp, Duration.ofSeconds(1)));
            }
        } catch (TimeoutException e) {
            activeNanos = now; // a position the broker could not say yet: stay awake a while longer
            return false;
        }
        if (alarm == null) {
            alarm = new RecordAlarm(name, clientId, bootstrap, maxPoll);
        }
        kafka.pause(assignment);
        alarm.arm(positions);
        endsNanos = now + cap.toNanos();
        dozing = true;
        return true;
    }

    /**
     * Waits a {@link #TICK} for the alarm: null to doze on; else the doze must end ({@link #wake}), with the records
     * the alarm read from the consumer's positions on (none when it ends at the cap or because the alarm failed).
     * The caller handles those as if polled and moves its positions past them.
     */
    public ConsumerRecords<String, byte[]> await() {
        if (System.nanoTime() - endsNanos >= 0) {
            return ConsumerRecords.empty();
        }
        try {
            return alarm.await(TICK);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ConsumerRecords.empty();
        }
    }

    /**
     * Ends a doze, if there is one: disarms the alarm and resumes every paused partition (a caller that holds some
     * paused for its own reasons pauses them again).
     */
    public void wake(Consumer<String, byte[]> kafka) {
        if (!dozing) {
            return;
        }
        dozing = false;
        alarm.disarm();
        kafka.resume(kafka.paused());
        activeNanos = System.nanoTime();
    }

    /**
     * Ends a wait in {@link #await} at once, from any thread: the consumer's loop is closing. A doze waits on its
     * alarm a {@link #TICK} at a time, which a consumer's wakeup does not end; without this, each dozing consumer
     * would hold a shutdown up to a tick.
     */
    public void release() {
        RecordAlarm a = alarm;
        if (a != null) {
            a.disarm();
        }
    }

    /** Stops the alarm's thread, if one was made. */
    @Override
    public void close() {
        if (alarm != null) {
            alarm.close();
        }
    }
}
