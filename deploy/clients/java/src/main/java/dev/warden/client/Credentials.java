package dev.warden.client;

/**
 * What a request carries in {@code Authorization: Bearer}: an API token as it is ({@link #token}), or an OAuth
 * access token that is fetched and renewed as needed ({@link ClientCredentials}, {@link RefreshTokenCredentials}).
 * Implementations are thread-safe.
 */
public interface Credentials {
    /** The bearer token for the next request, renewed first when it is about to expire. */
    String bearer();

    /**
     * Called when the server answered 401 to {@code rejected}: forget it, so that the next {@link #bearer()}
     * fetches a new one. True when a retry may succeed (a renewable credential); false for a fixed token.
     */
    default boolean invalidate(String rejected) {
        return false;
    }

    /** A fixed token: an agent's or a user's API token. */
    static Credentials token(String token) {
        if (token == null || token.isBlank()) {
            throw new IllegalArgumentException("token must not be blank");
        }
        return () -> token;
    }
}
