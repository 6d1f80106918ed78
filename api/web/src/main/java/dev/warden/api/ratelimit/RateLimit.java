package dev.warden.api.ratelimit;

import java.time.Duration;

/**
 * A sliding-window rule: at most {@code limit} accepted requests per key in any interval of length
 * {@code window}. Rejected requests are not counted, so a client that backs off regains capacity as its
 * oldest accepted requests leave the window.
 *
 * @param limit  requests allowed per window, at least 1
 * @param window the window, a whole number of seconds, at least one second
 */
public record RateLimit(int limit, Duration window) {
    public RateLimit {
        if (limit < 1) {
            throw new IllegalArgumentException("a rate limit must allow at least 1 request, got " + limit);
        }
        if (window.compareTo(Duration.ofSeconds(1)) < 0 || window.toNanos() % 1_000_000_000L != 0) {
            throw new IllegalArgumentException(
                    "a rate-limit window must be a whole number of seconds >= 1, got " + window);
        }
    }

    /** {@code limit} requests per {@code windowSeconds} seconds. */
    public static RateLimit perSeconds(int limit, long windowSeconds) {
        return new RateLimit(limit, Duration.ofSeconds(windowSeconds));
    }

    /** {@code limit} requests per minute. */
    public static RateLimit perMinute(int limit) {
        return perSeconds(limit, 60);
    }

    /** The window in whole seconds (as the 429 body reports it). */
    public long windowSeconds() {
        return window.toSeconds();
    }
}
