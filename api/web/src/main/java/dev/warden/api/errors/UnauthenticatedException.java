package dev.warden.api.errors;

import java.time.Instant;
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

    /**
     * The one-time challenge a password sign-in hands out when a second factor must follow: the client answers it
     * with a code. Not a credential by itself: it opens no session and is shown only to whoever gave the password.
     */
    public record SecondFactor(String challenge, Instant expiresAt) {}

    private final transient Optional<Challenge> challenge;
    private final transient Optional<SecondFactor> secondFactor;

    /** Without a challenge (sign-in, an ended session). */
    public UnauthenticatedException(ErrorCode code, String detail) {
        super(code, detail, List.of(), 401);
        this.challenge = Optional.empty();
        this.secondFactor = Optional.empty();
    }

    /** {@link ErrorCode#UNAUTHORIZED} asking for a (valid) bearer token. */
    public UnauthenticatedException(Challenge challenge, String detail) {
        super(ErrorCode.UNAUTHORIZED, detail, List.of(), 401);
        this.challenge = Optional.of(challenge);
        this.secondFactor = Optional.empty();
    }

    private UnauthenticatedException(SecondFactor secondFactor) {
        super(ErrorCode.TOTP_REQUIRED, "the password is right; answer the challenge with a TOTP code", List.of(), 401);
        this.challenge = Optional.empty();
        this.secondFactor = Optional.of(secondFactor);
    }

    /** {@link ErrorCode#TOTP_REQUIRED}, carrying the challenge the second factor answers. */
    public static UnauthenticatedException secondFactorRequired(SecondFactor secondFactor) {
        return new UnauthenticatedException(secondFactor);
    }

    /** The challenge a second factor answers, when that is what is missing. */
    public Optional<SecondFactor> secondFactor() {
        return secondFactor;
    }

    /** What to ask of a bearer-token client, if anything. */
    public Optional<Challenge> challenge() {
        return challenge;
    }
}
