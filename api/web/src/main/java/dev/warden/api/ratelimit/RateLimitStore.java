package dev.warden.api.ratelimit;

/**
 * Where sliding-window counters live. Implementations are thread-safe and decide atomically: two
 * concurrent acquisitions of the last slot never both succeed, even across processes sharing a store.
 */
public interface RateLimitStore extends AutoCloseable {
    /**
     * Counts one request under {@code key} if {@code rule} still admits it.
     *
     * @param key an opaque key; the caller namespaces it (limiter name and client)
     * @throws RateLimitStoreUnavailableException when the store cannot be reached; nothing was counted
     */
    Decision acquire(String key, RateLimit rule);

    /** Releases connections; the store must not be used afterwards. */
    @Override
    void close();
}
