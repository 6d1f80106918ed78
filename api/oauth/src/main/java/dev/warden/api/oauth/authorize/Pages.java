package dev.warden.api.oauth.authorize;

import dev.warden.api.auth.Tokens;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.WardenException;
import dev.warden.api.http.ErrorMapper;
import dev.warden.api.ratelimit.ClientIp;
import gg.jte.ContentType;
import gg.jte.TemplateEngine;
import gg.jte.output.StringOutput;
import io.helidon.http.HeaderNames;
import io.helidon.http.SetCookie;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;

/**
 * The browser pages of the authorization server (login, consent, error), rendered from the precompiled jte
 * templates in {@code src/main/jte/oauth}, with the headers every such page carries: never framed
 * ({@code frame-ancestors 'none'}, {@code X-Frame-Options: DENY}), no script but Warden's own (the login page's
 * passkey script), never cached, no referrer.
 * Forms are protected against cross-site requests by a double-submit token: a random value in a
 * {@code SameSite=Strict} cookie ({@code __Host-} and {@code Secure} over https) that the form must echo.
 * Also the error surface of these routes ({@link ErrorMapper}): an HTML page, never a redirect.
 */
public final class Pages implements ErrorMapper {
    private static final String CSRF_COOKIE = "warden_csrf";
    private static final String CSRF_COOKIE_HTTPS = "__Host-warden_csrf";
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String CSP = "default-src 'none'; script-src 'self'; connect-src 'self'; "
            + "style-src 'unsafe-inline'; img-src 'self'; "
            + "frame-ancestors 'none'; base-uri 'none'";

    private final TemplateEngine templates = TemplateEngine.createPrecompiled(ContentType.Html);
    private final ClientIp clientIp;

    public Pages(ClientIp clientIp) {
        this.clientIp = clientIp;
    }

    /** Sends template {@code name} (e.g. {@code oauth/login.jte}) with {@code params}. */
    public void send(ServerResponse res, Status status, String name, Map<String, Object> params) {
        StringOutput out = new StringOutput();
        templates.render(name, params, out);
        secureHeaders(res);
        res.status(status);
        res.header(HeaderNames.CONTENT_TYPE, "text/html; charset=utf-8");
        res.send(out.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** Redirects the browser (303 after a form post, 302 otherwise) with the page headers. */
    public static void redirect(ServerResponse res, Status status, String location) {
        secureHeaders(res);
        res.status(status);
        res.header(HeaderNames.LOCATION, location);
        res.send();
    }

    private static void secureHeaders(ServerResponse res) {
        res.header(HeaderNames.CACHE_CONTROL, "no-store");
        res.header(HeaderNames.create("Pragma"), "no-cache");
        res.header(HeaderNames.create("Content-Security-Policy"), CSP);
        res.header(HeaderNames.create("X-Frame-Options"), "DENY");
        res.header(HeaderNames.create("X-Content-Type-Options"), "nosniff");
        res.header(HeaderNames.create("Referrer-Policy"), "no-referrer");
    }

    /** An error page: what went wrong, never a redirect to an unvalidated URI. */
    public void error(ServerResponse res, Status status, String title, String message) {
        send(res, status, "oauth/error.jte", Map.of("title", title, "message", message));
    }

    /** The page of a form whose CSRF token does not match this browser's (403). */
    public void formRefused(ServerResponse res) {
        error(
                res,
                Status.FORBIDDEN_403,
                "Request refused",
                "This form expired or was sent from another site. Go back and try again.");
    }

    @Override
    public void send(ServerRequest req, ServerResponse res, WardenException e) {
        if (res.isSent()) {
            return;
        }
        int status = e.code() == ErrorCode.INTERNAL ? 500 : e.code().status();
        error(res, Status.create(status), e.code().title(), e.describe());
    }

    /** The CSRF token of this browser, set as a cookie when it has none yet. */
    public String csrfToken(ServerRequest req, ServerResponse res) {
        Optional<String> existing = csrfCookie(req);
        if (existing.isPresent()) {
            return existing.get();
        }
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        String token = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        boolean https = clientIp.isHttps(req);
        res.headers()
                .addCookie(SetCookie.builder(https ? CSRF_COOKIE_HTTPS : CSRF_COOKIE, token)
                        .path("/")
                        .httpOnly(true)
                        .secure(https)
                        .sameSite(SetCookie.SameSite.STRICT)
                        .maxAge(Duration.ofHours(2))
                        .build());
        return token;
    }

    /** True when the form's {@code csrf} equals this browser's CSRF cookie (constant time). */
    public boolean csrfMatches(ServerRequest req, Map<String, String> form) {
        Optional<String> cookie = csrfCookie(req);
        String sent = form.get("csrf");
        return cookie.isPresent()
                && sent != null
                && MessageDigest.isEqual(Tokens.hash(cookie.get()), Tokens.hash(sent));
    }

    private Optional<String> csrfCookie(ServerRequest req) {
        String name = clientIp.isHttps(req) ? CSRF_COOKIE_HTTPS : CSRF_COOKIE;
        return req.headers().cookies().first(name).asOptional().filter(v -> v.length() >= 32 && v.length() <= 64);
    }
}
