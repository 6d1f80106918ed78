package dev.warden.testing;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;

/** A clock tests move by hand; starts at the real time. Thread-safe. */
public final class MutableClock implements InstantSource {
    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.now());

    @Override
    public Instant instant() {
        return now.get();
    }

    /** Moves the clock forward. */
    public void advance(Duration by) {
        now.updateAndGet(t -> t.plus(by));
    }
}
