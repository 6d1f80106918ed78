package dev.warden.api.errors;

import java.time.Duration;
import java.util.List;

/**
 * A transient failure: the same request may succeed after {@link #retryAfter()} (a dependency is down or
 * slow: Kafka for the audit, the quota owner, the database, the rate-limit store). Nothing was changed.
 */
public abstract sealed class RetriableException extends WardenException
        permits UnavailableException, AccountLockedException, TooManyRequestsException {
    private static final long serialVersionUID = 1L;

    private final Duration retryAfter;

    protected RetriableException(ErrorCode code, String detail, Duration retryAfter, int expectedStatus) {
        super(code, detail, List.of(), expectedStatus);
        this.retryAfter = retryAfter;
    }

    /** How long to wait before trying again. */
    public Duration retryAfter() {
        return retryAfter;
    }
}
