package dev.warden.api.errors;

import java.time.Duration;

/** 429: the request comes too soon after the previous one of its kind; it may be sent again after {@link #retryAfter()}. */
public final class TooManyRequestsException extends RetriableException {
    private static final long serialVersionUID = 1L;

    public TooManyRequestsException(ErrorCode code, String detail, Duration retryAfter) {
        super(code, detail, retryAfter, 429);
    }
}
