package dev.warden.api.auth;

import dev.warden.api.access.Access;
import dev.warden.api.access.AccessPolicy;
import dev.warden.api.access.Principal;
import dev.warden.api.access.RouteTable;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.ForbiddenException;
import dev.warden.api.errors.InsufficientScopeException;
import dev.warden.api.errors.UnauthenticatedException;
import dev.warden.api.errors.UnauthenticatedException.Challenge;
import dev.warden.api.errors.WardenException;
import dev.warden.api.http.Problems;
import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import io.helidon.webserver.http.ServerRequest;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Enforces the {@link Access} each route declared where it was mounted ({@link RouteTable}), before the
 * route runs. A route open to anyone (or that authenticates its own callers) passes through. Otherwise the
 * bearer token becomes a {@link Principal}, put in the request context (read it with
 * {@link #principal(ServerRequest)}), or the request ends with a 401 problem and {@code WWW-Authenticate: Bearer}
 * (RFC 6750 section 3). Then the declaration is checked: a user's API token must hold the route's scope (403
 * {@code insufficient_scope}), an administrator route takes the administrator only, a session route a signed-in
 * session only (403 {@code forbidden}, {@link AccessPolicy}). A request that matches no route needs a caller
 * with every scope. When built with {@link CookieSessions}, a request without an {@code Authorization} header
 * may instead carry a session token in that cookie; then a state-changing request must come from the issuer's
 * origin (403 {@code cross_origin_request} otherwise: cross-site request forgery).
 */
public final class AuthFilter implements Filter {
    private static final String CONTEXT_KEY = "warden.principal";
    private static final String ROUTE_KEY = "warden.route";
    private static final HeaderName SEC_FETCH_SITE = HeaderNames.create("Sec-Fetch-Site");

    private final Authenticator authenticator;
    private final RouteTable routes;
    private final Optional<CookieSessions> cookieSessions;
    private final BearerChallenges challenges;
    private final StepUp stepUp;

    /**
     * Sessions carried by a browser cookie: the cookie's name, and the origin state-changing requests that carry
     * it must come from (the issuer's).
     */
    public record CookieSessions(String name, Supplier<String> origin) {
        /**
         * The cookie of a browser's administrator session (the console's administrator view): read before the
         * session cookie, so that the browser acts as the administrator while it holds a live one.
         */
        public String adminName() {
            return name + "_admin";
        }
    }

    /** The areas (a path prefix and its name) where a user must have signed in with a second factor. */
    public record StepUp(Map<String, String> areasByPrefix) {
        public static final StepUp NONE = new StepUp(Map.of());

        public StepUp {
            areasByPrefix = Map.copyOf(areasByPrefix);
        }

        Optional<String> areaOf(String path) {
            return areasByPrefix.entrySet().stream()
                    .filter(e -> path.equals(e.getKey()) || path.startsWith(e.getKey() + "/"))
                    .map(Map.Entry::getValue)
                    .findFirst();
        }
    }

    /**
     * @param routes the declared access of every route (filled as the routing is built)
     */
    public AuthFilter(Authenticator authenticator, RouteTable routes) {
        this(authenticator, routes, Optional.empty(), BearerChallenges.NONE);
    }

    /**
     * A filter that also accepts a session token in the cookie of {@code cookieSessions} when the request has no
     * {@code Authorization} header (only for session tokens, {@code wdn_ses_}: other kinds are bearer-only), and
     * whose refusals carry {@code challenges}' {@code WWW-Authenticate} (the resource metadata of OAuth protected
     * resources) and that refuses an OAuth access token issued for another resource than the path's.
     */
    public AuthFilter(
            Authenticator authenticator,
            RouteTable routes,
            Optional<CookieSessions> cookieSessions,
            BearerChallenges challenges) {
        this(authenticator, routes, cookieSessions, challenges, StepUp.NONE);
    }

    /** As above, also asking for a second-factor session in the areas of {@code stepUp}. */
    public AuthFilter(
            Authenticator authenticator,
            RouteTable routes,
            Optional<CookieSessions> cookieSessions,
            BearerChallenges challenges,
            StepUp stepUp) {
        this.authenticator = authenticator;
        this.routes = routes;
        this.cookieSessions = cookieSessions;
        this.challenges = challenges;
        this.stepUp = stepUp;
    }

    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        String path = req.path().path();
        Optional<RouteTable.Route> route = routes.match(req.prologue().method().text(), path);
        route.ifPresent(r -> req.context().register(ROUTE_KEY, r));
        if (route.isEmpty() && methodNotServed(req, res, path)) {
            return;
        }
        Access access = route.map(RouteTable.Route::access).orElse(RouteTable.UNKNOWN_ROUTE);
        if (access.needsNoToken()) {
            chain.proceed();
            return;
        }
        Optional<String> scope = access instanceof Access.Caller c ? c.scope() : Optional.empty();
        Optional<String> bearer = bearerToken(req);
        Optional<String> token = bearer.or(() -> sessionCookie(req));
        if (bearer.isEmpty() && token.isPresent() && !sameOrigin(req)) {
            Problems.sendProblem(
                    req,
                    res,
                    new ForbiddenException(
                            ErrorCode.CROSS_ORIGIN_REQUEST,
                            "a state-changing "
                                    + "request authenticated by the session cookie must come from "
                                    + cookieSessions.orElseThrow().origin().get()
                                    + " (Origin) or say Sec-Fetch-Site: same-origin; send the token as a bearer "
                                    + "token otherwise"));
            return;
        }
        if (token.isEmpty()) {
            res.header(HeaderNames.WWW_AUTHENTICATE, challenges.challenge(path, scope, Optional.empty()));
            Problems.sendProblem(req, res, unauthorized(Challenge.TOKEN_REQUIRED, "a bearer token is required"));
            return;
        }
        Optional<Principal> principal = authenticator.authenticate(token.get());
        if (principal.isEmpty()) {
            res.header(HeaderNames.WWW_AUTHENTICATE, challenges.challenge(path, scope, Optional.of("invalid_token")));
            Problems.sendProblem(
                    req, res, unauthorized(Challenge.TOKEN_INVALID, "the bearer token is invalid, revoked or expired"));
            return;
        }
        Optional<String> resource = challenges.resourceFor(path);
        if (resource.isPresent() && !principal.get().validFor(resource.get())) {
            res.header(HeaderNames.WWW_AUTHENTICATE, challenges.challenge(path, scope, Optional.of("invalid_token")));
            Problems.sendProblem(
                    req,
                    res,
                    unauthorized(
                            Challenge.TOKEN_INVALID,
                            "the access token was issued for another resource (audience mismatch)"));
            return;
        }
        Optional<WardenException> refused = refusal(access, principal.get())
                .or(() -> stepUp.areaOf(path).flatMap(area -> refusal(principal.get(), area)));
        if (refused.isPresent()) {
            if (refused.get() instanceof InsufficientScopeException insufficient) {
                res.header(
                        HeaderNames.WWW_AUTHENTICATE,
                        challenges.challenge(
                                path, Optional.of(insufficient.scope()), Optional.of("insufficient_scope")));
            }
            Problems.sendProblem(req, res, refused.get());
            return;
        }
        req.context().register(CONTEXT_KEY, principal.get());
        chain.proceed();
    }

    /** Why {@code caller} may not use a route declaring {@code access}, if it may not. */
    private static Optional<WardenException> refusal(Access access, Principal caller) {
        try {
            switch (access) {
                case Access.Caller c ->
                    c.scope().filter(scope -> !caller.holds(scope)).ifPresent(scope -> {
                        throw new InsufficientScopeException(scope);
                    });
                case Access.Administrator a -> AccessPolicy.requireAdministrator(caller, a.what());
                case Access.Session s -> AccessPolicy.requireSession(caller);
                case Access.Open o -> {}
                case Access.SelfAuthenticating o -> {}
            }
            return Optional.empty();
        } catch (WardenException e) {
            return Optional.of(e);
        }
    }

    /** Why {@code caller} may not use a step-up area, if it may not. */
    private static Optional<WardenException> refusal(Principal caller, String area) {
        try {
            AccessPolicy.requireSecondFactor(caller, area);
            return Optional.empty();
        } catch (WardenException e) {
            return Optional.of(e);
        }
    }

    /**
     * The authenticated caller of a request that passed this filter.
     *
     * @throws UnauthenticatedException when the request was not authenticated
     */
    public static Principal principal(ServerRequest req) {
        return req.context()
                .get(CONTEXT_KEY, Principal.class)
                .orElseThrow(() -> unauthorized(Challenge.TOKEN_REQUIRED, "a bearer token is required"));
    }

    /** The route this filter matched the request to, if it reached the filter and matched one (logs, metrics). */
    public static Optional<RouteTable.Route> routeIfAny(ServerRequest req) {
        return req.context().get(ROUTE_KEY, RouteTable.Route.class);
    }

    /** The authenticated caller of a request, if this filter established one (for logs and metrics). */
    public static Optional<Principal> principalIfAny(ServerRequest req) {
        return req.context().get(CONTEXT_KEY, Principal.class);
    }

    /** The token of an {@code Authorization: Bearer} header, if well-formed. */
    public static Optional<String> bearerToken(ServerRequest req) {
        return req.headers()
                .first(HeaderNames.AUTHORIZATION)
                .filter(h -> h.regionMatches(true, 0, "Bearer ", 0, 7))
                .map(h -> h.substring(7).strip())
                .filter(t -> !t.isEmpty());
    }

    /**
     * A path some route serves, asked with a method none serves: {@code OPTIONS} is answered 204 with the methods
     * in {@code Allow}, anything else 405 {@code method_not_allowed} with the same {@code Allow} (RFC 9110 15.5.6),
     * before authentication (which methods a path takes is public: the OpenAPI document lists them). False, and
     * nothing sent, when no route has the path (the usual 401 or 404 follows).
     */
    private boolean methodNotServed(RoutingRequest req, RoutingResponse res, String path) {
        java.util.SortedSet<String> methods = routes.methodsFor(path);
        if (methods.isEmpty()) {
            return false;
        }
        java.util.SortedSet<String> allowed = new java.util.TreeSet<>(methods);
        allowed.add("OPTIONS");
        res.header(HeaderNames.ALLOW, String.join(", ", allowed));
        if (req.prologue().method().text().equals("OPTIONS")) {
            res.status(io.helidon.http.Status.NO_CONTENT_204);
            res.send();
            return true;
        }
        Problems.methodNotAllowed(req, res, String.join(", ", allowed));
        return true;
    }

    private Optional<String> sessionCookie(ServerRequest req) {
        if (cookieSessions.isEmpty() || req.headers().contains(HeaderNames.AUTHORIZATION)) {
            return Optional.empty();
        }
        Optional<String> admin = req.headers()
                .cookies()
                .first(cookieSessions.get().adminName())
                .asOptional()
                .filter(v -> v.startsWith(TokenKind.ADMIN_SESSION.prefix()));
        return admin.or(() -> req.headers()
                .cookies()
                .first(cookieSessions.get().name())
                .asOptional()
                .filter(v -> v.startsWith(TokenKind.SESSION.prefix())));
    }

    /**
     * True when a request authenticated by the cookie may act: a safe method (GET, HEAD, OPTIONS), or one the
     * browser says comes from Warden's own origin: {@code Origin} equal to the issuer's, or
     * {@code Sec-Fetch-Site: same-origin}. A sibling origin on the same site (another port of localhost, another
     * subdomain) carries the cookie too, so {@code SameSite} alone does not stop it.
     */
    private boolean sameOrigin(ServerRequest req) {
        String method = req.prologue().method().text();
        if (method.equals("GET") || method.equals("HEAD") || method.equals("OPTIONS")) {
            return true;
        }
        if (req.headers().first(SEC_FETCH_SITE).filter("same-origin"::equals).isPresent()) {
            return true;
        }
        return req.headers()
                .first(HeaderNames.ORIGIN)
                .filter(o -> o.equals(cookieSessions.orElseThrow().origin().get()))
                .isPresent();
    }

    private static UnauthenticatedException unauthorized(Challenge challenge, String detail) {
        return new UnauthenticatedException(challenge, detail);
    }
}
