package dev.warden.testing;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;

/** A clock that runs like the real one but that tests can move forward or back. Thread-safe. */
public final class MutableClock implements InstantSource {
    private final AtomicReference<Duration> offset = new AtomicReference<>(Duration.ZERO);

    @Override
    public Instant instant() {
        return Instant.now().plus(offset.get());
    }

    /** Moves the clock (negative to move it back). */
    public void advance(Duration by) {
        offset.updateAndGet(o -> o.plus(by));
    }
}
