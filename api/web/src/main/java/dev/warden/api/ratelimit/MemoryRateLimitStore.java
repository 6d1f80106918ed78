package dev.warden.api.ratelimit;

import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Sliding-window counters in this process: per key, the times of the requests admitted in the last window
 * (8 bytes each, at most {@code limit} of them), so the count is exact, not estimated. Each acquisition
 * runs atomically inside {@link ConcurrentHashMap#compute}; keys idle for a whole window are swept at most
 * once per sweep interval by whichever caller notices, so memory follows the recently active clients and
 * their request counts (a limit of 10,000 per window costs at most 80 KB for a client that uses it all).
 *
 * <p>Counters are per process: behind a load balancer each instance counts on its own (use
 * {@link RedisRateLimitStore} to share them). Thread-safe.
 */
public final class MemoryRateLimitStore implements RateLimitStore {
    private static final long SWEEP_INTERVAL_MILLIS = 60_000;

    private final InstantSource clock;
    private final ConcurrentHashMap<String, Log> logs = new ConcurrentHashMap<>();
    private final AtomicLong nextSweep;

    public MemoryRateLimitStore(InstantSource clock) {
        this.clock = clock;
        this.nextSweep = new AtomicLong(clock.millis() + SWEEP_INTERVAL_MILLIS);
    }

    @Override
    public Decision acquire(String key, RateLimit rule) {
        long now = clock.millis();
        sweepIfDue(now);
        Decision[] out = new Decision[1];
        logs.compute(key, (k, log) -> {
            Log current = log == null || log.capacity() != rule.limit() ? new Log(rule.limit()) : log;
            out[0] = current.acquire(now, rule);
            return current;
        });
        return out[0];
    }

    /** Number of keys currently tracked (for tests and metrics). */
    public int size() {
        return logs.size();
    }

    private void sweepIfDue(long now) {
        long due = nextSweep.get();
        if (now < due || !nextSweep.compareAndSet(due, now + SWEEP_INTERVAL_MILLIS)) {
            return;
        }
        for (String key : logs.keySet()) {
            logs.computeIfPresent(key, (k, log) -> log.idleAt(now) ? null : log);
        }
    }

    @Override
    public void close() {
        logs.clear();
    }

    /**
     * Admission times (epoch millis) of one key, oldest first, in a ring that grows (doubling) up to the
     * limit, so a key costs memory for the requests it actually made. Guarded by the map's bin lock.
     */
    private static final class Log {
        private final int limit;
        private long[] times;
        private int head;
        private int size;
        private long windowMillis;

        Log(int limit) {
            this.limit = limit;
            this.times = new long[Math.min(limit, 8)];
        }

        int capacity() {
            return limit;
        }

        Decision acquire(long now, RateLimit rule) {
            windowMillis = rule.window().toMillis();
            long cutoff = now - windowMillis;
            while (size > 0 && times[head] <= cutoff) {
                head = (head + 1) % times.length;
                size--;
            }
            if (size < limit) {
                if (size == times.length) {
                    grow();
                }
                times[(head + size) % times.length] = now;
                size++;
                return Decision.allow(rule, limit - size);
            }
            return Decision.reject(rule, Duration.ofMillis(times[head] + windowMillis - now));
        }

        private void grow() {
            long[] bigger = new long[(int) Math.min(limit, 2L * times.length)];
            for (int i = 0; i < size; i++) {
                bigger[i] = times[(head + i) % times.length];
            }
            times = bigger;
            head = 0;
        }

        boolean idleAt(long now) {
            return size == 0 || times[(head + size - 1) % times.length] <= now - windowMillis;
        }
    }
}
