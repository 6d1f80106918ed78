package dev.warden.api.errors;

import java.util.List;
import java.util.Optional;

/**
 * No usable credential: missing, unknown, expired or revoked; or a bad username/password pair at sign-in.
 * {@link #challenge()} says, for a bearer-token surface, what to ask of the client (RFC 6750 section 3).
 */
public final class UnauthenticatedException extends WardenException {
    private static final long serialVersionUID = 1L;

    /** Why a bearer token is asked for. */
    public enum Challenge {
        /** No token was sent. */
        TOKEN_REQUIRED,
        /** The token sent is unknown, revoked or expired ({@code invalid_token}). */
        TOKEN_INVALID
    }

    private final transient Optional<Challenge> challenge;

    /** Without a challenge (sign-in, an ended session). */
    public UnauthenticatedException(ErrorCode code, String detail) {
        super(code, detail, List.of(), 401);
        this.challenge = Optional.empty();
    }

    /** {@link ErrorCode#UNAUTHORIZED} asking for a (valid) bearer token. */
    public UnauthenticatedException(Challenge challenge, String detail) {
        super(ErrorCode.UNAUTHORIZED, detail, List.of(), 401);
        this.challenge = Optional.of(challenge);
    }

    /** What to ask of a bearer-token client, if anything. */
    public Optional<Challenge> challenge() {
        return challenge;
    }
}
