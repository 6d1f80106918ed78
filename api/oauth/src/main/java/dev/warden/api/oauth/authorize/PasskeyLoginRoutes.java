package dev.warden.api.oauth.authorize;

import dev.warden.api.access.Access;
import dev.warden.api.errors.InvalidInputException;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.RequestReader;
import dev.warden.api.ratelimit.ClientIp;
import dev.warden.api.users.Origin;
import dev.warden.api.users.PasskeySignIn;
import dev.warden.api.users.SessionCookies;
import dev.warden.api.users.UserService;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.Map;
import java.util.Optional;

/**
 * Passkey sign-in on the login page, {@code POST /oauth/passkey}: the page's script asks
 * {@code POST /auth/passkeys/sign-in/options} for a ceremony, the browser signs it with a passkey, and the form
 * posts the {@code ceremony} and the {@code credential} ({@code PublicKeyCredential.toJSON()}, as JSON text). A
 * verified passkey signs in as {@code POST /auth/passkeys/sign-in} does, sets the session cookie and sends the
 * browser back to {@code return_to} (303); one that does not verify shows the login page again with the reason
 * (400). The passkey sign-in limit applies.
 */
public final class PasskeyLoginRoutes implements DeclaredService {
    static final String ACTION = "/oauth/passkey";
    /** The largest credential the form takes (a registration is bigger; an assertion is a few KiB at most). */
    private static final int MAX_CREDENTIAL = 16 * 1024;

    private final PasskeySignIn passkeys;
    private final SessionCookies cookies;
    private final Pages pages;
    private final ClientIp clientIp;
    private final long maxBodyBytes;

    public PasskeyLoginRoutes(
            PasskeySignIn passkeys, SessionCookies cookies, Pages pages, ClientIp clientIp, long maxBodyBytes) {
        this.passkeys = passkeys;
        this.cookies = cookies;
        this.pages = pages;
        this.clientIp = clientIp;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.post("/", Access.open(), this::signIn);
    }

    private void signIn(ServerRequest req, ServerResponse res) {
        Map<String, String> form = RequestReader.readForm(req, maxBodyBytes);
        String returnTo = LoginRoutes.returnTo(Optional.ofNullable(form.get("return_to")));
        if (!pages.csrfMatches(req, form)) {
            pages.formRefused(res);
            return;
        }
        String ceremony = form.getOrDefault("ceremony", "");
        String credential = form.getOrDefault("credential", "");
        if (ceremony.isEmpty() || credential.isEmpty() || credential.length() > MAX_CREDENTIAL) {
            LoginRoutes.render(
                    pages, req, res, Status.BAD_REQUEST_400, returnTo, "", "No passkey answer arrived. Try again.");
            return;
        }
        try {
            UserService.SignedIn signedIn = passkeys.signIn(ceremony, credential, Origin.of(req, clientIp));
            cookies.set(req, res, signedIn);
            Pages.redirect(res, Status.SEE_OTHER_303, returnTo);
        } catch (InvalidInputException e) {
            String reason =
                    e.errors().isEmpty() ? "" : " (" + e.errors().getFirst().message() + ")";
            LoginRoutes.render(
                    pages,
                    req,
                    res,
                    Status.BAD_REQUEST_400,
                    returnTo,
                    "",
                    "That passkey could not sign you in" + reason + ". Try again, or use your password.");
        }
    }
}
