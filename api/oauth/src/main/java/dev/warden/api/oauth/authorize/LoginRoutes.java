package dev.warden.api.oauth.authorize;

import dev.warden.api.access.Access;
import dev.warden.api.errors.UnauthenticatedException;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.RequestReader;
import dev.warden.api.ratelimit.ClientIp;
import dev.warden.api.users.Origin;
import dev.warden.api.users.SessionCookies;
import dev.warden.api.users.UserService;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The built-in login page, {@code /oauth/login}: {@code GET} shows the form (username and password of the
 * username plugin), {@code POST} signs in, sets the session cookie and sends the browser back to
 * {@code return_to} (303). {@code return_to} may only be Warden's own authorization endpoint, its device verification
 * page or the console, never another site (no open redirect). A bad username/password pair shows the form again with
 * one message, whatever was wrong (401). The sign-in IP limit and the account lockout of {@code /auth/sign-in}
 * apply here too. A right password of a user with TOTP leads to the second step ({@link SecondFactorRoutes}). Where
 * the browser supports passkeys, the page also offers passkey sign-in ({@link PasskeyLoginRoutes}).
 */
public final class LoginRoutes implements DeclaredService {
    private static final String ACTION = "/oauth/login";
    /** The device verification page (RFC 8628), the other page that sends users here. */
    public static final String DEVICE_PAGE = "/auth/device";
    /** The operator console, whose pages send users here to sign in. */
    public static final String CONSOLE = "/console";

    private final UserService users;
    private final SessionCookies cookies;
    private final Pages pages;
    private final ClientIp clientIp;
    private final long maxBodyBytes;

    public LoginRoutes(UserService users, SessionCookies cookies, Pages pages, ClientIp clientIp, long maxBodyBytes) {
        this.users = users;
        this.cookies = cookies;
        this.pages = pages;
        this.clientIp = clientIp;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/", Access.open(), this::show).post("/", Access.open(), this::signIn);
    }

    private void show(ServerRequest req, ServerResponse res) {
        String returnTo = returnTo(req.query().first("return_to").asOptional());
        render(
                req,
                res,
                Status.OK_200,
                returnTo,
                "",
                "",
                notice(req.query().first("why").asOptional()));
    }

    /** Why the user is asked to sign in again, from the authorization endpoint's {@code why}. */
    private static String notice(Optional<String> why) {
        return switch (why.orElse("")) {
            case "max_age" -> "The application asks you to sign in again: your last sign-in is older than it accepts.";
            case "mfa" ->
                "The application asks for two-step verification: sign in with a passkey, or with your password and "
                        + "authenticator code.";
            default -> "";
        };
    }

    private void signIn(ServerRequest req, ServerResponse res) {
        Map<String, String> form = RequestReader.readForm(req, maxBodyBytes);
        String returnTo = returnTo(Optional.ofNullable(form.get("return_to")));
        if (!pages.csrfMatches(req, form)) {
            pages.formRefused(res);
            return;
        }
        String username = form.getOrDefault("username", "");
        try {
            UserService.SignedIn signedIn =
                    users.signIn(username, form.getOrDefault("password", ""), Origin.of(req, clientIp));
            cookies.set(req, res, signedIn);
            Pages.redirect(res, Status.SEE_OTHER_303, returnTo);
        } catch (UnauthenticatedException e) {
            if (e.secondFactor().isPresent()) {
                // The password was right: the second step, with the challenge only this browser was given.
                SecondFactorRoutes.render(
                        pages,
                        req,
                        res,
                        Status.OK_200,
                        returnTo,
                        e.secondFactor().get().challenge(),
                        "");
                return;
            }
            render(
                    req,
                    res,
                    Status.UNAUTHORIZED_401,
                    returnTo,
                    username.length() > 64 ? "" : username,
                    "Invalid username or password.",
                    "");
        }
    }

    private void render(
            ServerRequest req,
            ServerResponse res,
            Status status,
            String returnTo,
            String username,
            String error,
            String notice) {
        render(pages, req, res, status, returnTo, username, error, notice);
    }

    /** The login form, with {@code error} shown when not empty. */
    static void render(
            Pages pages,
            ServerRequest req,
            ServerResponse res,
            Status status,
            String returnTo,
            String username,
            String error) {
        render(pages, req, res, status, returnTo, username, error, "");
    }

    /** The login form, with {@code error} and {@code notice} shown when not empty. */
    static void render(
            Pages pages,
            ServerRequest req,
            ServerResponse res,
            Status status,
            String returnTo,
            String username,
            String error,
            String notice) {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("action", ACTION);
        params.put("csrf", pages.csrfToken(req, res));
        params.put("returnTo", returnTo);
        params.put("username", username);
        params.put("error", error);
        params.put("notice", notice);
        params.put("passkeyAction", PasskeyLoginRoutes.ACTION);
        params.put("passkeyScript", LoginAssets.PASSKEY_SCRIPT);
        pages.send(res, status, "oauth/login.jte", params);
    }

    /** {@code value} when it is a path of Warden's authorization endpoint, else that endpoint's bare path. */
    static String returnTo(Optional<String> value) {
        return value.filter(v -> (v.startsWith("/oauth/authorize?")
                                || v.startsWith("/mcp/authorize?")
                                || v.equals(DEVICE_PAGE)
                                || v.startsWith(DEVICE_PAGE + "?")
                                || v.equals(CONSOLE)
                                || v.startsWith(CONSOLE + "/"))
                        && v.length() <= 8192
                        && v.chars().allMatch(c -> c > 0x20 && c < 0x7f)
                        && !v.contains("\\"))
                .orElse("/oauth/authorize");
    }
}
