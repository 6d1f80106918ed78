package dev.warden.sinks.external;

import java.time.Duration;

/**
 * How an HTTP audit sink bounds its time: the connect timeout, the timeout of one whole request (headers and
 * body of the answer), and how many times a transient failure (I/O error, timeout, HTTP 408, 429 or 5xx) is
 * retried at once. Immutable.
 *
 * <p>A batch's worst-case delivery time is {@code (retries + 1) × requestTimeout} per request; the sinks
 * never sleep between attempts, since they run after the canonical write and must not hold up the next batch.
 *
 * @param connectTimeout time to open a TCP (and TLS) connection; positive
 * @param requestTimeout time for one request from send to the last byte of the answer; positive
 * @param retries        immediate retries of a transient failure: 0 (the default) or 1
 */
public record HttpOptions(Duration connectTimeout, Duration requestTimeout, int retries) {
    /** The most retries a sink makes; more would only delay the batches behind this one. */
    public static final int MAX_RETRIES = 1;

    public HttpOptions {
        requirePositive("connect-timeout", connectTimeout);
        requirePositive("request-timeout", requestTimeout);
        if (retries < 0 || retries > MAX_RETRIES) {
            throw new IllegalArgumentException("retries must be 0.." + MAX_RETRIES + ", was " + retries);
        }
    }

    /** 5 s to connect, 5 s per request, no retry. */
    public static HttpOptions defaults() {
        return builder().build();
    }

    /** A builder holding every default. */
    public static Builder builder() {
        return new Builder();
    }

    private static void requirePositive(String key, Duration value) {
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(key + " must be positive, was " + value);
        }
    }

    /** Mutable builder; every field starts at its documented default. */
    public static final class Builder {
        private Duration connectTimeout = Duration.ofSeconds(5);
        private Duration requestTimeout = Duration.ofSeconds(5);
        private int retries = 0;

        private Builder() {}

        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = timeout;
            return this;
        }

        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = timeout;
            return this;
        }

        public Builder retries(int retries) {
            this.retries = retries;
            return this;
        }

        public HttpOptions build() {
            return new HttpOptions(connectTimeout, requestTimeout, retries);
        }
    }
}
