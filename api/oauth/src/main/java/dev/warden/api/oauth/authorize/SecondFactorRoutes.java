package dev.warden.api.oauth.authorize;

import dev.warden.api.access.Access;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.UnauthenticatedException;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.RequestReader;
import dev.warden.api.ratelimit.ClientIp;
import dev.warden.api.users.Origin;
import dev.warden.api.users.SessionCookies;
import dev.warden.api.users.UserService;
import dev.warden.api.users.totp.TotpService;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The login page's second step, {@code POST /oauth/totp}: the challenge the password step gave, and a TOTP code or a
 * recovery code. Right, it signs in as {@code POST /auth/totp/verify} does, sets the session cookie and sends the
 * browser back to {@code return_to} (303); wrong, it shows the step again (401), and a spent or expired challenge
 * sends the user to start over. The TOTP verification limit of {@code /auth/totp/verify} applies here too.
 */
public final class SecondFactorRoutes implements DeclaredService {
    static final String ACTION = "/oauth/totp";

    private final UserService users;
    private final SessionCookies cookies;
    private final Pages pages;
    private final ClientIp clientIp;
    private final long maxBodyBytes;

    public SecondFactorRoutes(
            UserService users, SessionCookies cookies, Pages pages, ClientIp clientIp, long maxBodyBytes) {
        this.users = users;
        this.cookies = cookies;
        this.pages = pages;
        this.clientIp = clientIp;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.post("/", Access.open(), this::verify);
    }

    private void verify(ServerRequest req, ServerResponse res) {
        Map<String, String> form = RequestReader.readForm(req, maxBodyBytes);
        String returnTo = LoginRoutes.returnTo(Optional.ofNullable(form.get("return_to")));
        if (!pages.csrfMatches(req, form)) {
            pages.formRefused(res);
            return;
        }
        String challenge = form.getOrDefault("challenge", "");
        Optional<String> code = filled(form.get("code"));
        Optional<String> recovery = filled(form.get("recovery_code"));
        try {
            if (code.isPresent() == recovery.isPresent()) {
                throw new UnauthenticatedException(ErrorCode.TOTP_INVALID, "give a code or a recovery code");
            }
            UserService.SignedIn signedIn =
                    users.completeSignIn(challenge, new TotpService.Answer(code, recovery), Origin.of(req, clientIp));
            cookies.set(req, res, signedIn);
            Pages.redirect(res, Status.SEE_OTHER_303, returnTo);
        } catch (UnauthenticatedException e) {
            render(
                    pages,
                    req,
                    res,
                    Status.UNAUTHORIZED_401,
                    returnTo,
                    challenge.length() > 100 ? "" : challenge,
                    "That code did not work. Try the current code; if it keeps failing, start over.");
        }
    }

    private static Optional<String> filled(String value) {
        return Optional.ofNullable(value).map(String::strip).filter(v -> !v.isEmpty());
    }

    /** The second step's form for {@code challenge}. */
    static void render(
            Pages pages,
            ServerRequest req,
            ServerResponse res,
            Status status,
            String returnTo,
            String challenge,
            String error) {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("action", ACTION);
        params.put("csrf", pages.csrfToken(req, res));
        params.put("returnTo", returnTo);
        params.put("challenge", challenge);
        params.put("error", error);
        params.put("startOver", "/oauth/login?return_to=" + URLEncoder.encode(returnTo, StandardCharsets.UTF_8));
        pages.send(res, status, "oauth/login-totp.jte", params);
    }
}
