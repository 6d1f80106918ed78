package dev.warden.api.users;

import dev.warden.api.ratelimit.ClientIp;
import io.helidon.http.SetCookie;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Duration;
import java.time.Instant;

/**
 * The session cookie: {@code <name>=<token>; Path=/; HttpOnly; SameSite=Lax} plus {@code Secure} when the
 * client came over https (directly or per a trusted proxy) or always/never per configuration. It lives
 * until the session's absolute end; the server decides earlier expiry, so sliding refreshes never need to
 * re-send it. {@code SameSite=Lax} keeps it off cross-site POSTs (CSRF). Immutable.
 */
public final class SessionCookies {
    private final UsersConfig.Sessions config;
    private final ClientIp clientIp;

    public SessionCookies(UsersConfig.Sessions config, ClientIp clientIp) {
        this.config = config;
        this.clientIp = clientIp;
    }

    /** The cookie's name. */
    public String name() {
        return config.cookieName();
    }

    /** Sets the cookie for a session issued at {@code issuedAt} that ends at the latest at {@code absoluteEnd}. */
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

    private SetCookie.Builder base(ServerRequest req, String value) {
        boolean secure = switch (config.cookieSecure()) {
            case ALWAYS -> true;
            case NEVER -> false;
            case AUTO -> clientIp.isHttps(req);
        };
        return SetCookie.builder(config.cookieName(), value)
                .path("/")
                .httpOnly(true)
                .secure(secure)
                .sameSite(SetCookie.SameSite.LAX);
    }
}
