package dev.warden.api.access;

import java.util.Optional;

/**
 * What a route requires of its caller, declared where the route is mounted (STYLE 13). The authentication
 * filter enforces it before the handler runs; a route cannot be mounted without one
 * ({@code http.DeclaredRules}).
 */
public sealed interface Access {
    /** Anyone, no token (sign-up, sign-in, health, metrics, discovery documents). */
    record Open() implements Access {}

    /** The route authenticates its own callers (the SSE stream: a token in the query, an error event). */
    record SelfAuthenticating() implements Access {}

    /** Any authenticated caller; an API token must hold {@code scope} when one is given. */
    record Caller(Optional<String> scope) implements Access {}

    /** The bootstrap administrator only; {@code what} names what is reserved in the 403. */
    record Administrator(String what) implements Access {}

    /** A user signed in with a session (not an API token, not an agent). */
    record Session() implements Access {}

    /** Anyone, no token. */
    static Access open() {
        return new Open();
    }

    /** The route checks its own credentials. */
    static Access selfAuthenticating() {
        return new SelfAuthenticating();
    }

    /** Any authenticated caller whose API token, if that is the credential, holds {@code scope}. */
    static Access scope(String scope) {
        return new Caller(Optional.of(scope));
    }

    /** Any authenticated caller, whatever the token's scopes (the caller's own credential endpoints). */
    static Access anyCaller() {
        return new Caller(Optional.empty());
    }

    /** The administrator only. */
    static Access administrator(String what) {
        return new Administrator(what);
    }

    /** A signed-in session only. */
    static Access session() {
        return new Session();
    }

    /** True when the filter lets the request through without a token. */
    default boolean needsNoToken() {
        return this instanceof Open || this instanceof SelfAuthenticating;
    }
}
