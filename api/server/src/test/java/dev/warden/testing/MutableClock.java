package dev.warden.testing;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock tests move by hand. {@code new MutableClock()} stands still at the moment it was made (unit
 * tests); {@link #running()} runs like the real clock (platforms under test, so that successive decisions
 * get increasing timestamps). Both move by {@link #advance}. Thread-safe.
 */
public final class MutableClock implements InstantSource {
    private final boolean running;
    private final Instant start = Instant.now();
    private final long startNanos = System.nanoTime();
    private final AtomicReference<Duration> offset = new AtomicReference<>(Duration.ZERO);

    /** A clock standing still at the real time of its creation. */
    public MutableClock() {
        this(false);
    }

    private MutableClock(boolean running) {
        this.running = running;
    }

    /** A clock that runs from the real time of its creation. */
    public static MutableClock running() {
        return new MutableClock(true);
    }

    @Override
    public Instant instant() {
        Instant base = running ? start.plusNanos(System.nanoTime() - startNanos) : start;
        return base.plus(offset.get());
    }

    /** Moves the clock (negative to move it back). */
    public void advance(Duration by) {
        offset.updateAndGet(o -> o.plus(by));
    }
}
