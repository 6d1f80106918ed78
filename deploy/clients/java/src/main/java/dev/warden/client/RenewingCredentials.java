package dev.warden.client;

import java.time.Duration;
import java.time.Instant;

/**
 * An OAuth access token kept until shortly before it expires, then renewed by {@link #renew()}. Concurrent callers
 * share one renewal: the first renews, the others wait for it and use its token.
 */
abstract class RenewingCredentials implements Credentials {
    /** A token this close to its expiry is renewed before use, so it cannot expire in flight. */
    static final Duration EARLY = Duration.ofSeconds(30);

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
        Instant now = tokens.clock().instant();
        Duration early = current == null
                ? EARLY
                : min(EARLY, Duration.between(now, current.expiresAt()).dividedBy(2));
        if (current == null || !now.plus(early).isBefore(current.expiresAt())) {
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

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
