package dev.warden.api.errors;

import java.time.Duration;

/**
 * {@link ErrorCode#ACCOUNT_LOCKED}: the account refuses sign-in until its lock ends, {@link #retryAfter()} from now.
 * Only answered after a correct first factor (a right password, a valid link or code), where saying so tells nothing
 * to someone without it; a bare wrong password while locked stays the ordinary {@code INVALID_CREDENTIALS}.
 */
public final class AccountLockedException extends RetriableException {
    private static final long serialVersionUID = 1L;

    public AccountLockedException(Duration retryAfter) {
        super(ErrorCode.ACCOUNT_LOCKED, "the account is locked after too many failed attempts", retryAfter, 423);
    }
}
