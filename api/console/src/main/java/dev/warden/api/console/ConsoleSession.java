package dev.warden.api.console;

import dev.warden.api.access.Principal;
import dev.warden.api.http.RequestReader;
import dev.warden.api.oauth.authorize.Pages;
import dev.warden.api.users.SessionCookies;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Who is at the console, for every page: the signed-in user of the browser's session cookie (else the browser is
 * sent to sign in and come back), and the CSRF check of every form (the login pages' double-submit token).
 */
final class ConsoleSession {
    private final SessionCookies cookies;
    private final Pages forms;
    private final ConsolePages pages;
    private final long maxBodyBytes;

    ConsoleSession(SessionCookies cookies, Pages forms, ConsolePages pages, long maxBodyBytes) {
        this.cookies = cookies;
        this.forms = forms;
        this.pages = pages;
        this.maxBodyBytes = maxBodyBytes;
    }

    /** The signed-in user of this browser; else the browser is sent to sign in and come back, and empty. */
    Optional<Principal.User> signedIn(ServerRequest req, ServerResponse res) {
        Optional<Principal.User> user = cookies.signedIn(req);
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
    Optional<Principal.User> formFrom(ServerRequest req, ServerResponse res) {
        return formFrom(req, res, RequestReader.readForm(req, maxBodyBytes));
    }

    /** {@link #formFrom(ServerRequest, ServerResponse)} for a form the page has read itself (it needs its fields). */
    Optional<Principal.User> formFrom(ServerRequest req, ServerResponse res, Map<String, String> form) {
        Optional<Principal.User> user = signedIn(req, res);
        if (user.isPresent() && !forms.csrfMatches(req, form)) {
            Map<String, Object> params = new LinkedHashMap<>();
            params.put("title", "Request refused");
            params.put("message", "This form expired or was sent from another site. Go back and try again.");
            pages.send(res, Status.FORBIDDEN_403, "console/error.jte", params);
            return Optional.empty();
        }
        return user;
    }

    /** The page's parameters every page starts with: which navigation entry is current and the CSRF token. */
    Map<String, Object> params(ServerRequest req, ServerResponse res, String page) {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("page", page);
        params.put("csrf", forms.csrfToken(req, res));
        return params;
    }

    /** Ends the browser's session cookie (the session itself is the caller's to end). */
    void clear(ServerRequest req, ServerResponse res) {
        cookies.clear(req, res);
    }
}
