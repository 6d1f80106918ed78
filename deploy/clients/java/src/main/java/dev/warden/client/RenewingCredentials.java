package dev.warden.client;

/**
 * An OAuth access token kept until its renewal time ({@link OAuthTokens.Issued#renewAt}), then renewed by {@link #renew()}. Concurrent callers
 * share one renewal: the first renews, the others wait for it and use its token.
 */
abstract class RenewingCredentials implements Credentials {
    private final OAuthTokens tokens;
    private OAuthTokens.Issued current;

    RenewingCredentials(OAuthTokens tokens) {
        this.tokens = tokens;
    }

    /** Starts with {@code current} (a token kept from an earlier run), renewed once it is about to expire. */
    RenewingCredentials(OAuthTokens tokens, OAuthTokens.Issued current) {
        this.tokens = tokens;
        this.current = current;
    }

    /** Fetches a new token (the grant of the subclass). */
    abstract OAuthTokens.Issued renew();

    OAuthTokens tokens() {
        return tokens;
    }

    @Override
    public synchronized String bearer() {
        if (current == null || !tokens.clock().instant().isBefore(current.renewAt())) {
            current = renew();
        }
        return current.accessToken();
    }

    @Override
    public synchronized boolean invalidate(String rejected) {
        if (current != null && current.accessToken().equals(rejected)) {
            current = null;
        }
        return true;
    }
}
