package dev.warden.sinks.webhooks;

import java.util.concurrent.atomic.LongAdder;

/**
 * Process-wide webhook delivery counters, never decreasing. Each (endpoint, event) delivery ends exactly one
 * way: {@code delivered} (a 2xx), {@code dropped} (retries exhausted, a non-retried 3xx/4xx, or a target the
 * SSRF guard refuses), {@code disabled} (a 410 that disabled the endpoint), or quietly when the endpoint was
 * deleted or disabled meanwhile. {@code retried} counts attempts after the first. Thread-safe.
 */
public final class WebhookCounters {
    private final LongAdder delivered = new LongAdder();
    private final LongAdder retried = new LongAdder();
    private final LongAdder dropped = new LongAdder();
    private final LongAdder disabled = new LongAdder();

    void delivered() {
        delivered.increment();
    }

    void retried() {
        retried.increment();
    }

    void dropped() {
        dropped.increment();
    }

    void disabled() {
        disabled.increment();
    }

    /** Every counter at about one moment. */
    public Snapshot snapshot() {
        return new Snapshot(delivered.sum(), retried.sum(), dropped.sum(), disabled.sum());
    }

    /** Counter values. */
    public record Snapshot(long delivered, long retried, long dropped, long disabled) {}
}
