package dev.warden.api.users;

import dev.warden.api.access.Access;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.errors.UnauthenticatedException;
import dev.warden.api.errors.WardenException;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.JsonInput;
import dev.warden.api.http.RequestReader;
import dev.warden.api.http.Responses;
import dev.warden.api.ratelimit.ClientIp;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.HeaderNames;
import io.helidon.http.HttpMediaType;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A user's e-mail address and password reset under {@code /auth} (docs/sign-in.md, "E-mail"):
 *
 * <ul>
 *   <li>{@code GET /email} (session): {@code {"email", "verified"}};
 *   <li>{@code PUT /email} (session) {@code {"email"}}: 202, the address set unverified and a link mailed to it;
 *   <li>{@code POST /email/verify} (public) {@code {"token"}}: 204; {@code GET /email/verify?token=} is the link
 *       itself, answering a short page;
 *   <li>{@code POST /password-reset/request} (public, 3 per minute per IP) {@code {"email"}}: 202 whether or not
 *       an account has that verified address;
 *   <li>{@code GET /password-reset?token=}: the link, a page with a form for the new password;
 *   <li>{@code POST /password-reset/complete} (public) {@code {"token", "newPassword"}} as JSON (204) or from the
 *       page's form (a page);
 *   <li>{@code POST /magic-link} (public, 3 per minute per IP) {@code {"email"}}: 202, a sign-in link to a verified
 *       address; {@code GET /magic-link?token=} is the link, a page with a button; {@code POST /magic-link/verify}
 *       {@code {"token"}} signs in (JSON as sign-in answers, or from the page);
 *   <li>{@code POST /email-otp} (public, 5 per minute per IP) {@code {"email"}}: 202, a 6-digit code;
 *       {@code POST /email-otp/verify} {@code {"email", "code"}} signs in.
 * </ul>
 */
public final class EmailRoutes implements DeclaredService {
    private static final Set<String> EMAIL_FIELDS = Set.of("email");
    private static final Set<String> TOKEN_FIELDS = Set.of("token");
    private static final Set<String> RESET_FIELDS = Set.of("token", "newPassword");
    private static final String CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "
            + "frame-ancestors 'none'; base-uri 'none'";

    private static final Set<String> CODE_FIELDS = Set.of("email", "code");

    private final EmailAccounts email;
    private final SessionCookies cookies;
    private final ClientIp clientIp;
    private final long maxBodyBytes;

    /** The e-mail side of accounts these routes serve: other components mail users through it. */
    public EmailAccounts accounts() {
        return email;
    }

    public EmailRoutes(EmailAccounts email, SessionCookies cookies, ClientIp clientIp, long maxBodyBytes) {
        this.email = email;
        this.cookies = cookies;
        this.clientIp = clientIp;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/email", Access.session(), this::address)
                .put("/email", Access.session(), this::change)
                .post("/email/verify", Access.open(), this::verify)
                .get("/email/verify", Access.open(), this::verifyPage)
                .post("/password-reset/request", Access.open(), this::requestReset)
                .get("/password-reset", Access.open(), this::resetPage)
                .post("/password-reset/complete", Access.open(), this::completeReset)
                .post("/magic-link", Access.open(), this::sendLink)
                .get("/magic-link", Access.open(), this::linkPage)
                .post("/magic-link/verify", Access.open(), this::signInWithLink)
                .post("/email-otp", Access.open(), this::sendCode)
                .post("/email-otp/verify", Access.open(), this::signInWithCode);
    }

    private void sendLink(ServerRequest req, ServerResponse res) {
        JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes), EMAIL_FIELDS);
        Optional<String> address = in.requiredString("email", 254);
        in.validate();
        email.sendSignInLink(address.orElseThrow());
        Responses.json(res, Status.ACCEPTED_202, Json.mapper().createObjectNode());
    }

    /** The link itself: a button, so that a mail scanner fetching the link signs nobody in. */
    private void linkPage(ServerRequest req, ServerResponse res) {
        String token = req.query().first("token").orElse("");
        if (!token.matches("[A-Za-z0-9_-]{1,100}")) {
            page(res, Status.BAD_REQUEST_400, "Link not valid", "<p>This sign-in link is not valid.</p>");
            return;
        }
        page(
                res,
                Status.OK_200,
                "Sign in to Warden",
                "<form method=\"post\" action=\"/auth/magic-link/verify\" id=\"sign-in\">"
                        + "<input type=\"hidden\" name=\"token\" value=\"" + token + "\">"
                        + "<button type=\"submit\">Sign in</button></form>");
    }

    private void signInWithLink(ServerRequest req, ServerResponse res) {
        if (!isForm(req)) {
            JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes), TOKEN_FIELDS);
            Optional<String> token = in.requiredString("token", 100);
            in.validate();
            UserRoutes.answer(
                    req,
                    res,
                    Status.OK_200,
                    email.signInWithLink(token.orElseThrow(), Origin.of(req, clientIp)),
                    cookies);
            return;
        }
        Map<String, String> fields = RequestReader.readForm(req, maxBodyBytes);
        try {
            UserService.SignedIn signedIn =
                    email.signInWithLink(fields.getOrDefault("token", ""), Origin.of(req, clientIp));
            cookies.set(req, res, signedIn);
            page(res, Status.OK_200, "Signed in", "<p>You are signed in to Warden.</p>");
        } catch (UnauthenticatedException e) {
            if (e.secondFactor().isPresent()) {
                page(
                        res,
                        Status.UNAUTHORIZED_401,
                        "Authenticator code needed",
                        "<p>This account also asks for an authenticator code: sign in from the application or the "
                                + "sign-in page.</p>");
            } else {
                page(res, Status.UNAUTHORIZED_401, "Link not valid", "<p>" + escape(e.describe()) + "</p>");
            }
        } catch (WardenException e) {
            page(res, Status.create(e.code().status()), "Not signed in", "<p>" + escape(e.describe()) + "</p>");
        }
    }

    private void sendCode(ServerRequest req, ServerResponse res) {
        JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes), EMAIL_FIELDS);
        Optional<String> address = in.requiredString("email", 254);
        in.validate();
        email.sendSignInCode(address.orElseThrow());
        Responses.json(res, Status.ACCEPTED_202, Json.mapper().createObjectNode());
    }

    private void signInWithCode(ServerRequest req, ServerResponse res) {
        JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes, Set.of("code")), CODE_FIELDS);
        Optional<String> address = in.requiredString("email", 254);
        Optional<String> code = in.requiredString("code", 16);
        in.validate();
        UserRoutes.answer(
                req,
                res,
                Status.OK_200,
                email.signInWithCode(address.orElseThrow(), code.orElseThrow(), Origin.of(req, clientIp)),
                cookies);
    }

    private static boolean isForm(ServerRequest req) {
        return req.headers()
                .contentType()
                .map(t -> t.test(HttpMediaType.create("application/x-www-form-urlencoded")))
                .orElse(false);
    }

    private void address(ServerRequest req, ServerResponse res) {
        EmailAccounts.Address address = email.address(AuthFilter.principal(req));
        Responses.json(
                res,
                Status.OK_200,
                Json.mapper()
                        .createObjectNode()
                        .put("email", address.email().orElse(null))
                        .put("verified", address.verified()));
    }

    private void change(ServerRequest req, ServerResponse res) {
        JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes), EMAIL_FIELDS);
        Optional<String> address = in.requiredString("email", 254);
        in.validate();
        email.changeEmail(AuthFilter.principal(req), address.orElseThrow());
        Responses.json(
                res,
                Status.ACCEPTED_202,
                Json.mapper().createObjectNode().put("email", address.get()).put("verified", false));
    }

    private void verify(ServerRequest req, ServerResponse res) {
        JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes), TOKEN_FIELDS);
        Optional<String> token = in.requiredString("token", 100);
        in.validate();
        email.verifyEmail(token.orElseThrow());
        Responses.noContent(res);
    }

    private void verifyPage(ServerRequest req, ServerResponse res) {
        String token = req.query().first("token").orElse("");
        try {
            email.verifyEmail(token);
            page(res, Status.OK_200, "E-mail address confirmed", "<p>Your e-mail address is confirmed.</p>");
        } catch (WardenException e) {
            page(
                    res,
                    Status.BAD_REQUEST_400,
                    "Link not valid",
                    "<p>This link is not valid: it was used, has expired, or the address changed since.</p>");
        }
    }

    private void requestReset(ServerRequest req, ServerResponse res) {
        JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes), EMAIL_FIELDS);
        Optional<String> address = in.requiredString("email", 254);
        in.validate();
        email.requestPasswordReset(address.orElseThrow());
        Responses.json(res, Status.ACCEPTED_202, Json.mapper().createObjectNode());
    }

    private void resetPage(ServerRequest req, ServerResponse res) {
        String token = req.query().first("token").orElse("");
        if (!token.matches("[A-Za-z0-9_-]{1,100}")) {
            page(res, Status.BAD_REQUEST_400, "Link not valid", "<p>This reset link is not valid.</p>");
            return;
        }
        page(
                res,
                Status.OK_200,
                "Choose a new password",
                "<form method=\"post\" action=\"/auth/password-reset/complete\" id=\"reset\">"
                        + "<input type=\"hidden\" name=\"token\" value=\"" + token + "\">"
                        + "<label for=\"newPassword\">New password</label> "
                        + "<input type=\"password\" id=\"newPassword\" name=\"newPassword\" "
                        + "autocomplete=\"new-password\" required> "
                        + "<button type=\"submit\">Set password</button></form>"
                        + "<p>Setting it signs you out everywhere.</p>");
    }

    private void completeReset(ServerRequest req, ServerResponse res) {
        if (!isForm(req)) {
            JsonInput in =
                    JsonInput.of(RequestReader.readObject(req, maxBodyBytes, Set.of("newPassword")), RESET_FIELDS);
            Optional<String> token = in.requiredString("token", 100);
            Optional<String> password = in.requiredString("newPassword", 4096);
            in.validate();
            email.completePasswordReset(token.orElseThrow(), password.orElseThrow(), clientIp.text(req));
            Responses.noContent(res);
            return;
        }
        Map<String, String> fields = RequestReader.readForm(req, maxBodyBytes);
        try {
            email.completePasswordReset(
                    fields.getOrDefault("token", ""), fields.getOrDefault("newPassword", ""), clientIp.text(req));
            page(res, Status.OK_200, "Password changed", "<p>Your password is changed. Sign in with it.</p>");
        } catch (WardenException e) {
            page(res, Status.BAD_REQUEST_400, "Password not changed", "<p>" + escape(e.describe()) + "</p>");
        }
    }

    private static void page(ServerResponse res, Status status, String title, String body) {
        res.status(status);
        res.header(HeaderNames.CONTENT_TYPE, "text/html; charset=UTF-8");
        res.header(HeaderNames.CACHE_CONTROL, "no-store");
        res.header("Content-Security-Policy", CSP);
        res.header("X-Frame-Options", "DENY");
        res.header("Referrer-Policy", "no-referrer");
        res.send("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + title
                + "</title></head><body style=\"font-family: system-ui, sans-serif\"><main><h1>" + title + "</h1>"
                + body + "</main></body></html>");
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;")
                .replace("<", "&lt;")
                .replace(">", "&gt;")
                .replace("\"", "&quot;");
    }
}
