package dev.warden.api.errors;

import java.time.Duration;

/** A dependency Warden needs for this request is unavailable ({@link ErrorCode#UNAVAILABLE}). */
public final class UnavailableException extends RetriableException {
    private static final long serialVersionUID = 1L;

    public UnavailableException(String detail, Duration retryAfter) {
        super(ErrorCode.UNAVAILABLE, detail, retryAfter, 503);
    }
}
