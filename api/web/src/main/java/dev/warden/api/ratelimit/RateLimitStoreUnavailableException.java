package dev.warden.api.ratelimit;

/**
 * A shared rate-limit store (Redis) could not answer. Transient: the next request tries again. What the
 * request itself then gets depends on the limiter's {@link FailMode}.
 */
public class RateLimitStoreUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RateLimitStoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
