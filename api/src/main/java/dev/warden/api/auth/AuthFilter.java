package dev.warden.api.auth;

import dev.warden.api.access.Principal;
import dev.warden.api.access.Scopes;
import dev.warden.api.errors.InsufficientScopeException;
import dev.warden.api.errors.UnauthenticatedException.Challenge;
import dev.warden.api.errors.UnauthenticatedException;
import dev.warden.api.http.Problems;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import io.helidon.webserver.http.ServerRequest;
import java.util.List;
import java.util.Optional;

/**
 * Bearer authentication for every route except the public ones. On success the {@link Principal} is put
 * in the request context (read it with {@link #principal(ServerRequest)}); otherwise the request ends with
 * a 401 problem and {@code WWW-Authenticate: Bearer} (RFC 6750 section 3). A user's API token must also
 * hold the {@link Scopes scope} of the route, or the request ends with a 403 {@code insufficient_scope}. When built with a session
 * cookie name, a request without an {@code Authorization} header may instead carry a session token in
 * that cookie.
 */
public final class AuthFilter implements Filter {
    private static final String CONTEXT_KEY = "warden.principal";

    private final Authenticator authenticator;
    private final List<String> publicPrefixes;
    private final Optional<String> sessionCookie;

    /**
     * @param publicPrefixes path prefixes reachable without a token, e.g. {@code /observe/health}
     */
    public AuthFilter(Authenticator authenticator, List<String> publicPrefixes) {
        this.authenticator = authenticator;
        this.publicPrefixes = List.copyOf(publicPrefixes);
        this.sessionCookie = Optional.empty();
    }

    /**
     * A filter that also accepts a session token in cookie {@code sessionCookie} when the request has no
     * {@code Authorization} header. The cookie is read only for session tokens ({@code wdn_ses_}): other
     * kinds are bearer-only.
     */
    public AuthFilter(Authenticator authenticator, List<String> publicPrefixes, String sessionCookie) {
        this.authenticator = authenticator;
        this.publicPrefixes = List.copyOf(publicPrefixes);
        this.sessionCookie = Optional.of(sessionCookie);
    }

    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        String path = req.path().path();
        if (publicPrefixes.stream().anyMatch(path::startsWith)) {
            chain.proceed();
            return;
        }
        Optional<String> token = bearerToken(req).or(() -> sessionCookie(req));
        if (token.isEmpty()) {
            Problems.sendProblem(req, res, unauthorized(Challenge.TOKEN_REQUIRED, "a bearer token is required"));
            return;
        }
        Optional<Principal> principal = authenticator.authenticate(token.get());
        if (principal.isEmpty()) {
            Problems.sendProblem(req, res, unauthorized(Challenge.TOKEN_INVALID,
                    "the bearer token is invalid, revoked or expired"));
            return;
        }
        if (principal.get() instanceof Principal.User user) {
            Optional<String> needed = Scopes.required(req.prologue().method(), path);
            if (needed.isPresent() && !user.holds(needed.get())) {
                Problems.sendProblem(req, res, new InsufficientScopeException(needed.get()));
                return;
            }
        }
        req.context().register(CONTEXT_KEY, principal.get());
        chain.proceed();
    }

    /**
     * The authenticated caller of a request that passed this filter.
     *
     * @throws UnauthenticatedException when the request was not authenticated
     */
    public static Principal principal(ServerRequest req) {
        return req.context().get(CONTEXT_KEY, Principal.class)
                .orElseThrow(() -> unauthorized(Challenge.TOKEN_REQUIRED, "a bearer token is required"));
    }

    /** The token of an {@code Authorization: Bearer} header, if well-formed. */
    public static Optional<String> bearerToken(ServerRequest req) {
        return req.headers().first(HeaderNames.AUTHORIZATION)
                .filter(h -> h.regionMatches(true, 0, "Bearer ", 0, 7))
                .map(h -> h.substring(7).strip())
                .filter(t -> !t.isEmpty());
    }

    private Optional<String> sessionCookie(ServerRequest req) {
        if (sessionCookie.isEmpty() || req.headers().contains(HeaderNames.AUTHORIZATION)) {
            return Optional.empty();
        }
        return req.headers().cookies().first(sessionCookie.get()).asOptional()
                .filter(v -> v.startsWith(TokenKind.SESSION.prefix()));
    }

    private static UnauthenticatedException unauthorized(Challenge challenge, String detail) {
        return new UnauthenticatedException(challenge, detail);
    }
}
