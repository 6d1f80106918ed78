package dev.warden.api.ratelimit;

import java.time.Duration;

/**
 * The outcome of one acquisition against a {@link RateLimit}.
 *
 * @param allowed    true when the request was admitted (and counted)
 * @param rule       the rule applied
 * @param remaining  requests still admitted in the current window after this one
 * @param retryAfter when rejected, the time until the oldest counted request leaves the window (and one
 *                   more request will be admitted); zero when allowed
 */
public record Decision(boolean allowed, RateLimit rule, int remaining, Duration retryAfter) {

    /** An admitted request. */
    public static Decision allow(RateLimit rule, int remaining) {
        return new Decision(true, rule, remaining, Duration.ZERO);
    }

    /** A rejected request that may retry after {@code retryAfter}. */
    public static Decision reject(RateLimit rule, Duration retryAfter) {
        return new Decision(false, rule, 0, retryAfter);
    }

    /**
     * {@link #retryAfter} in whole seconds, rounded up and at least 1 for a rejection, as the
     * {@code Retry-After} header and the 429 body carry it (RFC 9110 section 10.2.3).
     */
    public long retryAfterSeconds() {
        if (allowed) {
            return 0;
        }
        long millis = Math.max(1, retryAfter.toMillis());
        return Math.max(1, (millis + 999) / 1000);
    }
}
