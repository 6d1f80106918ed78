package dev.warden.api.console;

import dev.warden.api.access.Principal;
import dev.warden.api.http.RequestReader;
import dev.warden.api.oauth.authorize.Pages;
import dev.warden.api.users.Administrators;
import dev.warden.api.users.SessionCookies;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Who is at the console, for every page: the signed-in user of the browser's session cookie (else the browser is
 * sent to sign in and come back), acting as the administrator while the browser also holds a live administrator
 * session of theirs (D167), and the CSRF check of every form (the login pages' double-submit token).
 */
final class ConsoleSession {
    /**
     * The person at the console.
     *
     * @param user          the signed-in user
     * @param administrator whether they are an administrator (may open the administrator view)
     * @param admin         the administrator, while the browser holds a live administrator session of theirs: the
     *                      pages then read and act as the administrator
     */
    record Operator(Principal.User user, boolean administrator, Optional<Principal> admin) {
        /** Whom the pages read and act for: the administrator in the administrator view, else the user. */
        Principal principal() {
            return admin.orElse(user);
        }

        /** True in the administrator view. */
        boolean administratorView() {
            return admin.isPresent();
        }

        /** The layout's administrator control: {@code on}, {@code available} or empty. */
        String adminState() {
            return admin.isPresent() ? "on" : administrator ? "available" : "";
        }
    }

    private final SessionCookies cookies;
    private final Administrators administrators;
    private final Pages forms;
    private final ConsolePages pages;
    private final long maxBodyBytes;
    private final InstantSource clock;

    ConsoleSession(
            SessionCookies cookies,
            Administrators administrators,
            Pages forms,
            ConsolePages pages,
            long maxBodyBytes,
            InstantSource clock) {
        this.clock = clock;
        this.cookies = cookies;
        this.administrators = administrators;
        this.forms = forms;
        this.pages = pages;
        this.maxBodyBytes = maxBodyBytes;
    }

    /** The person signed in with this browser; else the browser is sent to sign in and come back, and empty. */
    Optional<Operator> signedIn(ServerRequest req, ServerResponse res) {
        Optional<Operator> user = cookies.signedIn(req).map(u -> {
            Optional<Principal> admin =
                    cookies.adminToken(req).flatMap(token -> administrators.adminSessionOf(u.id(), token));
            return new Operator(u, admin.isPresent() || administrators.isAdministrator(u.id()), admin);
        });
        if (user.isEmpty()) {
            String back = req.prologue().method().text().equals("GET")
                    ? req.prologue().uriPath().path()
                    : ConsoleRoutes.HOME;
            ConsolePages.redirect(
                    res, Status.FOUND_302, "/oauth/login?return_to=" + URLEncoder.encode(back, StandardCharsets.UTF_8));
        }
        return user;
    }

    /**
     * The signed-in user who sent this form with its CSRF token; else the browser is sent to sign in, or shown
     * the 403 page of a refused form, and empty. The form is read first (at most the body limit).
     */
    Optional<Operator> formFrom(ServerRequest req, ServerResponse res) {
        return formFrom(req, res, RequestReader.readForm(req, maxBodyBytes));
    }

    /** {@link #formFrom(ServerRequest, ServerResponse)} for a form the page has read itself (it needs its fields). */
    Optional<Operator> formFrom(ServerRequest req, ServerResponse res, Map<String, String> form) {
        Optional<Operator> user = signedIn(req, res);
        if (user.isPresent() && !forms.csrfMatches(req, form)) {
            Map<String, Object> params = new LinkedHashMap<>();
            params.put("title", "Request refused");
            params.put("message", "This form expired or was sent from another site. Go back and try again.");
            pages.send(res, Status.FORBIDDEN_403, "console/error.jte", params);
            return Optional.empty();
        }
        return user;
    }

    /**
     * The page's parameters every page starts with: which navigation entry is current, the CSRF token, and the
     * administrator control.
     */
    Map<String, Object> params(ServerRequest req, ServerResponse res, Operator operator, String page) {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("page", page);
        params.put("csrf", forms.csrfToken(req, res));
        params.put("admin", operator.adminState());
        return params;
    }

    /** Opens the administrator view: an hour-long administrator session (audited) in its own cookie. */
    void openAdministratorView(ServerRequest req, ServerResponse res, Operator operator) {
        Administrators.AdminSession admin = administrators.startAdminSession(operator.user());
        cookies.setAdmin(req, res, admin.token(), clock.instant(), admin.expiresAt());
    }

    /** Leaves the administrator view: ends the administrator session (audited) and drops its cookie. */
    void closeAdministratorView(ServerRequest req, ServerResponse res) {
        cookies.adminToken(req).ifPresent(administrators::endAdminSession);
        cookies.clearAdmin(req, res);
    }

    /** Ends the browser's cookies (the session itself is the caller's to end; its administrator session ends too). */
    void clear(ServerRequest req, ServerResponse res) {
        closeAdministratorView(req, res);
        cookies.clear(req, res);
    }
}
