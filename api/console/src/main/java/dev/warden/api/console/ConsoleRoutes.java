package dev.warden.api.console;

import dev.warden.api.access.Access;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.ratelimit.ClientIp;
import dev.warden.api.users.UserService;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;

/**
 * The console's front pages under {@code /console}: the live feed and sign-out. Every page needs a signed-in
 * session (the session cookie of the users' sign-in); without one the browser goes to the login page and comes
 * back. Open at the filter, like the OAuth pages: the session is found from the cookie here, so that a missing
 * one is a redirect, not a JSON 401.
 */
final class ConsoleRoutes implements DeclaredService {
    static final String HOME = "/console/feed";

    private final UserService users;
    private final ClientIp clientIp;
    private final ConsoleSession session;
    private final ConsolePages pages;

    ConsoleRoutes(UserService users, ClientIp clientIp, ConsoleSession session, ConsolePages pages) {
        this.users = users;
        this.clientIp = clientIp;
        this.session = session;
        this.pages = pages;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/", Access.open(), (req, res) -> ConsolePages.redirect(res, Status.FOUND_302, HOME))
                .get("/feed", Access.open(), this::feed)
                .post("/sign-out", Access.open(), this::signOut)
                .post("/administrator", Access.open(), this::openAdministratorView)
                .post("/administrator/end", Access.open(), this::closeAdministratorView);
    }

    private void feed(ServerRequest req, ServerResponse res) {
        Optional<ConsoleSession.Operator> user = session.signedIn(req, res);
        if (user.isEmpty()) {
            return;
        }
        Map<String, Object> params = session.params(req, res, user.get(), "feed");
        pages.send(res, Status.OK_200, "console/feed.jte", params);
    }

    /**
     * Opens the administrator view for an administrator whose session proved a second factor (else the 403 page
     * says why: {@code step_up_required}, or not an administrator), then back to the feed.
     */
    private void openAdministratorView(ServerRequest req, ServerResponse res) {
        Optional<ConsoleSession.Operator> user = session.formFrom(req, res);
        if (user.isEmpty()) {
            return;
        }
        session.openAdministratorView(req, res, user.get());
        ConsolePages.redirect(res, Status.SEE_OTHER_303, HOME);
    }

    /** Leaves the administrator view (the administrator session ends), then back to the feed. */
    private void closeAdministratorView(ServerRequest req, ServerResponse res) {
        Optional<ConsoleSession.Operator> user = session.formFrom(req, res);
        if (user.isEmpty()) {
            return;
        }
        session.closeAdministratorView(req, res);
        ConsolePages.redirect(res, Status.SEE_OTHER_303, HOME);
    }

    /** Ends the session (CSRF token), clears its cookie and shows the login page. */
    private void signOut(ServerRequest req, ServerResponse res) {
        Optional<ConsoleSession.Operator> user = session.formFrom(req, res);
        if (user.isEmpty()) {
            return;
        }
        users.signOut(user.get().user(), clientIp.text(req));
        session.clear(req, res);
        ConsolePages.redirect(
                res, Status.SEE_OTHER_303, "/oauth/login?return_to=" + URLEncoder.encode(HOME, StandardCharsets.UTF_8));
    }
}
