package dev.warden.api.oauth.authorize;

import dev.warden.api.access.Access;
import dev.warden.api.access.Principal;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.RequestReader;
import dev.warden.api.users.UserService;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The built-in consent page, {@code /oauth/consent}: {@code GET} (with the authorization request's parameters)
 * shows who asks (the client's name and the host it sends the browser back to), for which resource and scopes;
 * {@code POST} with {@code decision=allow} remembers the consent and sends the browser back with a code, with
 * {@code deny} back with {@code access_denied} (303 either way). The request is validated again on each step;
 * the form is CSRF-protected and needs the same signed-in session.
 */
public final class ConsentRoutes implements DeclaredService {
    private static final String ACTION = "/oauth/consent";

    private final AuthorizationFlow flow;
    private final UserService users;
    private final Pages pages;
    private final long maxBodyBytes;

    public ConsentRoutes(AuthorizationFlow flow, UserService users, Pages pages, long maxBodyBytes) {
        this.flow = flow;
        this.users = users;
        this.pages = pages;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/", Access.open(), this::show).post("/", Access.open(), this::decide);
    }

    private void show(ServerRequest req, ServerResponse res) {
        Optional<AuthorizationRequest> request = validated(res, AuthorizationFlow.queryParams(req));
        if (request.isEmpty()) {
            return;
        }
        Optional<Principal.User> user = flow.signedIn(req);
        if (user.isEmpty()) {
            Pages.redirect(
                    res,
                    Status.FOUND_302,
                    flow.loginLocation("/oauth/authorize?"
                            + AuthorizationRequest.query(request.get().params())));
            return;
        }
        AuthorizationRequest r = request.get();
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("action", ACTION);
        params.put("csrf", pages.csrfToken(req, res));
        params.put("username", users.current(user.get()).user().username());
        params.put("clientName", r.client().displayName());
        params.put("redirectHost", AuthorizationFlow.redirectHost(r.redirectUri()));
        params.put("resource", r.resource().uri());
        params.put("scopes", r.scopes());
        params.put("hidden", r.params());
        pages.send(res, Status.OK_200, "oauth/consent.jte", params);
    }

    private void decide(ServerRequest req, ServerResponse res) {
        Map<String, String> form = new LinkedHashMap<>(RequestReader.readForm(req, maxBodyBytes));
        if (!pages.csrfMatches(req, form)) {
            pages.formRefused(res);
            return;
        }
        String decision = form.getOrDefault("decision", "");
        Map<String, String> params = new LinkedHashMap<>(form);
        params.keySet().retainAll(AuthorizationRequest.PARAMETERS);
        Optional<AuthorizationRequest> request = validated(res, params);
        if (request.isEmpty()) {
            return;
        }
        Optional<Principal.User> user = flow.signedIn(req);
        if (user.isEmpty()) {
            Pages.redirect(
                    res,
                    Status.SEE_OTHER_303,
                    flow.loginLocation("/oauth/authorize?"
                            + AuthorizationRequest.query(request.get().params())));
            return;
        }
        switch (decision) {
            case "allow" ->
                Pages.redirect(
                        res,
                        Status.SEE_OTHER_303,
                        flow.approve(user.get(), request.get(), true).location());
            case "deny" ->
                Pages.redirect(
                        res,
                        Status.SEE_OTHER_303,
                        request.get()
                                .error("access_denied", "the user denied the request", flow.issuer())
                                .location());
            default -> pages.error(res, Status.BAD_REQUEST_400, "Invalid request", "decision must be allow or deny");
        }
    }

    private Optional<AuthorizationRequest> validated(ServerResponse res, Map<String, String> params) {
        try {
            return Optional.of(flow.validate(params));
        } catch (AuthorizationRequest.RedirectedError e) {
            Pages.redirect(res, Status.SEE_OTHER_303, e.redirect().location());
            return Optional.empty();
        }
    }
}
