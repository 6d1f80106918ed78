package dev.warden.sinks.webhooks;

import java.time.Duration;

/**
 * How webhooks are delivered. Immutable; {@link #builder()} holds every default.
 *
 * @param maxAttempts         attempts per (endpoint, event), the first included: 1 to 10, default 4 (1 + 3 retries)
 * @param backoff             wait before the first retry; it doubles before each further one; default 1 s
 * @param timeout             time to connect and to get the whole answer of one attempt; default 10 s
 * @param allowPrivateTargets allow loopback, private and other non-public targets; default false
 */
public record WebhookOptions(int maxAttempts, Duration backoff, Duration timeout, boolean allowPrivateTargets) {
    /** Most attempts allowed; more would hold an endpoint's later events back for too long. */
    public static final int MAX_ATTEMPTS = 10;

    public WebhookOptions {
        if (maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS) {
            throw new IllegalArgumentException(
                    "warden.webhooks.max-attempts must be 1.." + MAX_ATTEMPTS + ", was " + maxAttempts);
        }
        if (backoff.isNegative()) {
            throw new IllegalArgumentException("warden.webhooks.backoff-ms must not be negative");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("warden.webhooks.timeout-ms must be positive");
        }
    }

    /** The wait before attempt {@code attempt} (2 or more): {@code backoff × 2^(attempt - 2)}. */
    public Duration backoffBefore(int attempt) {
        return backoff.multipliedBy(1L << Math.min(Math.max(attempt - 2, 0), 20));
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Mutable builder; every field starts at its documented default. */
    public static final class Builder {
        private int maxAttempts = 4;
        private Duration backoff = Duration.ofSeconds(1);
        private Duration timeout = Duration.ofSeconds(10);
        private boolean allowPrivateTargets;

        private Builder() {}

        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
            return this;
        }

        public Builder backoff(Duration backoff) {
            this.backoff = backoff;
            return this;
        }

        public Builder timeout(Duration timeout) {
            this.timeout = timeout;
            return this;
        }

        public Builder allowPrivateTargets(boolean allow) {
            this.allowPrivateTargets = allow;
            return this;
        }

        public WebhookOptions build() {
            return new WebhookOptions(maxAttempts, backoff, timeout, allowPrivateTargets);
        }
    }
}
