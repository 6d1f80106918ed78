package dev.warden.api.errors;

import java.util.List;
import java.util.Optional;

/**
 * An OAuth 2.1 failure (SPEC Errors, "OAuth failures"): the {@link ErrorCode}'s code is the RFC 6749 {@code error}
 * value and its status the HTTP status. The OAuth endpoints show it as {@code {"error", "error_description"}};
 * the detail never holds a secret. {@link #basicChallenge()} marks a failed {@code client_secret_basic}
 * authentication, answered with {@code WWW-Authenticate: Basic} (RFC 6749 section 5.2).
 */
public final class OAuthException extends WardenException {
    private static final long serialVersionUID = 1L;

    private final boolean basicChallenge;
    private final Optional<ErrorCode> reason;

    public OAuthException(ErrorCode code, String description) {
        this(code, description, false, Optional.empty());
    }

    private OAuthException(ErrorCode code, String description, boolean basicChallenge, Optional<ErrorCode> reason) {
        super(code, description, List.of(), code.status());
        if (!code.name().startsWith("OAUTH_")) {
            throw new IllegalArgumentException(code + " is not an OAuth error");
        }
        reason.filter(r -> r.name().startsWith("OAUTH_")).ifPresent(r -> {
            throw new IllegalArgumentException(r + " is an OAuth error, not a reason");
        });
        this.basicChallenge = basicChallenge;
        this.reason = reason;
    }

    /**
     * The OAuth error {@code code} for a Warden failure class {@code reason} (shown as {@code warden_error}), e.g.
     * {@code invalid_request} because the delegation was revoked.
     */
    public static OAuthException because(ErrorCode code, ErrorCode reason, String description) {
        return new OAuthException(code, description, false, Optional.of(reason));
    }

    /** {@code invalid_client} for a client that authenticated with HTTP Basic. */
    public static OAuthException basicClientFailure(String description) {
        return new OAuthException(ErrorCode.OAUTH_INVALID_CLIENT, description, true, Optional.empty());
    }

    public static OAuthException invalidRequest(String description) {
        return new OAuthException(ErrorCode.OAUTH_INVALID_REQUEST, description);
    }

    public static OAuthException invalidGrant(String description) {
        return new OAuthException(ErrorCode.OAUTH_INVALID_GRANT, description);
    }

    public static OAuthException invalidClient(String description) {
        return new OAuthException(ErrorCode.OAUTH_INVALID_CLIENT, description);
    }

    public static OAuthException invalidScope(String description) {
        return new OAuthException(ErrorCode.OAUTH_INVALID_SCOPE, description);
    }

    public static OAuthException invalidTarget(String description) {
        return new OAuthException(ErrorCode.OAUTH_INVALID_TARGET, description);
    }

    /** The RFC 6749 {@code error} value. */
    public String error() {
        return code().code();
    }

    /** The Warden failure class behind the OAuth error, if one was named. */
    public Optional<ErrorCode> reason() {
        return reason;
    }

    /** True when the answer must carry {@code WWW-Authenticate: Basic}. */
    public boolean basicChallenge() {
        return basicChallenge;
    }
}
