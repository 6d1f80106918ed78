package dev.warden.api.oauth.authorize;

import dev.warden.api.access.Access;
import dev.warden.api.access.Principal;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.Optional;

/**
 * The authorization endpoint, {@code GET /} of {@code /mcp/authorize} and {@code /oauth/authorize}. A valid
 * request from a browser that is not signed in goes to the login page (302), one that is signed in to the
 * consent page, or straight back to the client with a code when the user already allowed this client
 * everything it asks for. A session older than {@code max_age}, or without the second factor {@code acr_values} asks
 * for, signs in again first (the login page says why). Errors before the client and redirect URI are validated are a page
 * ({@link Pages}); later ones go back to the client with {@code error}, {@code state} and {@code iss}.
 */
public final class AuthorizeRoutes implements DeclaredService {
    private final AuthorizationFlow flow;

    public AuthorizeRoutes(AuthorizationFlow flow) {
        this.flow = flow;
    }

    @Override
    public void routing(DeclaredRules rules) {
        // Open at the filter: the user is found from the session cookie here, and sent to sign in if absent.
        rules.get("/", Access.open(), this::authorize);
    }

    private void authorize(ServerRequest req, ServerResponse res) {
        AuthorizationRequest request;
        try {
            request = flow.validate(AuthorizationFlow.queryParams(req));
        } catch (AuthorizationRequest.RedirectedError e) {
            Pages.redirect(res, Status.FOUND_302, e.redirect().location());
            return;
        }
        Optional<Principal.User> user = flow.signedIn(req);
        String path = req.prologue().uriPath().path();
        if (user.isEmpty()) {
            String self = path + "?" + AuthorizationRequest.query(request.params());
            Pages.redirect(res, Status.FOUND_302, flow.loginLocation(self));
            return;
        }
        switch (flow.authentication(user.get(), request)) {
            case MET -> {}
            case SIGN_IN_AGAIN -> {
                String self = path + "?" + request.querySignedInAfter(flow.now());
                String why = request.secondFactor() && !user.get().multiFactor() ? "mfa" : "max_age";
                Pages.redirect(res, Status.FOUND_302, flow.loginLocation(self, Optional.of(why)));
                return;
            }
            case UNMET -> {
                // The user signed in again for this request and has no second factor to give: the client hears so.
                Pages.redirect(
                        res,
                        Status.FOUND_302,
                        request.error(
                                        "unmet_authentication_requirements",
                                        "the user could not sign in with a second factor",
                                        flow.issuer())
                                .location());
                return;
            }
        }
        if (flow.consented(user.get(), request)) {
            Pages.redirect(
                    res,
                    Status.FOUND_302,
                    flow.approve(user.get(), request, false).location());
            return;
        }
        Pages.redirect(res, Status.FOUND_302, flow.consentLocation(request));
    }
}
