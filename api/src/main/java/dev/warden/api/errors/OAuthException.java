package dev.warden.api.errors;

import java.util.List;

/**
 * An OAuth 2.1 failure (SPEC Errors, "OAuth failures"): the {@link ErrorCode}'s code is the RFC 6749 {@code error}
 * value and its status the HTTP status. The OAuth endpoints show it as {@code {"error", "error_description"}};
 * the detail never holds a secret. {@link #basicChallenge()} marks a failed {@code client_secret_basic}
 * authentication, answered with {@code WWW-Authenticate: Basic} (RFC 6749 section 5.2).
 */
public final class OAuthException extends WardenException {
    private static final long serialVersionUID = 1L;

    private final boolean basicChallenge;

    public OAuthException(ErrorCode code, String description) {
        this(code, description, false);
    }

    private OAuthException(ErrorCode code, String description, boolean basicChallenge) {
        super(code, description, List.of(), code.status());
        if (!code.name().startsWith("OAUTH_")) {
            throw new IllegalArgumentException(code + " is not an OAuth error");
        }
        this.basicChallenge = basicChallenge;
    }

    /** {@code invalid_client} for a client that authenticated with HTTP Basic. */
    public static OAuthException basicClientFailure(String description) {
        return new OAuthException(ErrorCode.OAUTH_INVALID_CLIENT, description, true);
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

    /** True when the answer must carry {@code WWW-Authenticate: Basic}. */
    public boolean basicChallenge() {
        return basicChallenge;
    }
}
