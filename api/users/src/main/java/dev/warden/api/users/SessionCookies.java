package dev.warden.api.users;

import dev.warden.api.access.Principal;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.auth.Authenticator;
import dev.warden.api.auth.SessionResolver;
import dev.warden.api.auth.TokenKind;
import dev.warden.api.ratelimit.ClientIp;
import io.helidon.http.SetCookie;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The session cookie: {@code <name>=<token>; Path=/; HttpOnly; SameSite=Lax} plus {@code Secure} when the
 * client came over https (directly or per a trusted proxy) or always/never per configuration. It lives
 * until the session's absolute end; the server decides earlier expiry, so sliding refreshes never need to
 * re-send it. {@code SameSite=Lax} keeps it off cross-site POSTs (CSRF). Immutable.
 */
public final class SessionCookies {
    private final UsersConfig.Sessions config;
    private final ClientIp clientIp;
    /** Sessions are the only credential a browser page has: the chain that knows them alone. */
    private final Authenticator sessions;

    public SessionCookies(UsersConfig.Sessions config, ClientIp clientIp, SessionResolver sessions) {
        this.config = config;
        this.clientIp = clientIp;
        this.sessions = Authenticator.sessions(sessions);
    }

    /**
     * The user signed in with this browser's session cookie, if any (browser pages: the login and consent pages,
     * the console).
     */
    public Optional<Principal.User> signedIn(ServerRequest req) {
        return req.headers()
                .cookies()
                .first(name())
                .asOptional()
                .filter(v -> v.startsWith(TokenKind.SESSION.prefix()))
                .flatMap(sessions::authenticate)
                .filter(p -> p instanceof Principal.User u && u.isSession())
                .map(Principal.User.class::cast);
    }

    /** The cookie's name. */
    public String name() {
        return config.cookieName();
    }

    /** Sets the cookie for a session issued at {@code issuedAt} that ends at the latest at {@code absoluteEnd}. */
    /** The cookie of a fresh sign-in: its session token, until the session's absolute end. */
    public void set(ServerRequest req, ServerResponse res, UserService.SignedIn signedIn) {
        Session session = signedIn.session();
        set(req, res, signedIn.token(), session.absoluteExpiresAt(), session.createdAt());
    }

    public void set(ServerRequest req, ServerResponse res, String token, Instant absoluteEnd, Instant issuedAt) {
        res.headers()
                .addCookie(base(req, token)
                        .maxAge(Duration.between(issuedAt, absoluteEnd))
                        .build());
    }

    /** Tells the browser to drop the cookie (an expiry in 1970; Helidon omits a zero Max-Age). */
    public void clear(ServerRequest req, ServerResponse res) {
        res.headers().addCookie(base(req, "").expires(Instant.EPOCH).build());
    }

    /**
     * The cookie of the browser's administrator session (the console's administrator view, D167): the session
     * cookie's name with {@code _admin} (so {@link AuthFilter.CookieSessions#adminName()} finds it too).
     */
    public String adminName() {
        return new AuthFilter.CookieSessions(name(), () -> "").adminName();
    }

    /** The administrator session token this browser holds, if any. */
    public Optional<String> adminToken(ServerRequest req) {
        return req.headers()
                .cookies()
                .first(adminName())
                .asOptional()
                .filter(v -> v.startsWith(TokenKind.ADMIN_SESSION.prefix()));
    }

    /** Sets the administrator session cookie until {@code expiresAt} ({@code SameSite=Strict}: never sent cross-site). */
    public void setAdmin(ServerRequest req, ServerResponse res, String token, Instant now, Instant expiresAt) {
        res.headers()
                .addCookie(base(req, adminName(), token)
                        .sameSite(SetCookie.SameSite.STRICT)
                        .maxAge(Duration.between(now, expiresAt))
                        .build());
    }

    /** Tells the browser to drop the administrator session cookie. */
    public void clearAdmin(ServerRequest req, ServerResponse res) {
        res.headers()
                .addCookie(base(req, adminName(), "")
                        .sameSite(SetCookie.SameSite.STRICT)
                        .expires(Instant.EPOCH)
                        .build());
    }

    private SetCookie.Builder base(ServerRequest req, String value) {
        return base(req, config.cookieName(), value);
    }

    private SetCookie.Builder base(ServerRequest req, String name, String value) {
        boolean secure = switch (config.cookieSecure()) {
            case ALWAYS -> true;
            case NEVER -> false;
            case AUTO -> clientIp.isHttps(req);
        };
        return SetCookie.builder(name, value)
                .path("/")
                .httpOnly(true)
                .secure(secure)
                .sameSite(SetCookie.SameSite.LAX);
    }
}
