package dev.warden.api.oauth.authorize;

import dev.warden.api.access.Principal;
import dev.warden.api.auth.TokenKind;
import dev.warden.api.auth.Tokens;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.InvalidInputException;
import dev.warden.api.oauth.Issuer;
import dev.warden.api.oauth.ProtectedResources;
import dev.warden.api.oauth.clients.Clients;
import dev.warden.api.users.SessionCookies;
import io.helidon.webserver.http.ServerRequest;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What the authorize, login and consent routes share: validating a request, finding the signed-in user (the
 * session cookie of the username plugin), remembering consent and issuing codes. Codes are single use, live
 * {@code codeTtl} and are stored as their SHA-256 with the client, redirect URI, PKCE challenge, scope, resource
 * and the session they were consented in.
 */
public final class AuthorizationFlow {
    private final Clients clients;
    private final ProtectedResources resources;
    private final Issuer issuer;
    private final SessionCookies sessions;
    private final CodeRepository codes;
    private final ConsentRepository consents;
    private final Duration codeTtl;
    private final Optional<String> loginPage;
    private final Optional<String> consentPage;
    private final InstantSource clock;

    public AuthorizationFlow(
            Clients clients,
            ProtectedResources resources,
            Issuer issuer,
            SessionCookies sessions,
            CodeRepository codes,
            ConsentRepository consents,
            Duration codeTtl,
            Optional<String> loginPage,
            Optional<String> consentPage,
            InstantSource clock) {
        this.clients = clients;
        this.resources = resources;
        this.issuer = issuer;
        this.sessions = sessions;
        this.codes = codes;
        this.consents = consents;
        this.codeTtl = codeTtl;
        this.loginPage = loginPage;
        this.consentPage = consentPage;
        this.clock = clock;
    }

    Issuer issuer() {
        return issuer;
    }

    Instant now() {
        return clock.instant();
    }

    AuthorizationRequest validate(Map<String, String> params) {
        return AuthorizationRequest.validate(params, clients, resources, issuer);
    }

    /** The parameters of the request's query, each at most once (RFC 6749 section 3.1). */
    static Map<String, String> queryParams(ServerRequest req) {
        Map<String, String> params = new LinkedHashMap<>();
        for (String name : req.query().names()) {
            var values = req.query().all(name);
            if (values.isEmpty()) {
                continue; // a bare "&" or a name without "=": nothing was sent under it
            }
            if (values.size() > 1) {
                throw new InvalidInputException(ErrorCode.BAD_REQUEST, name + " must not be repeated");
            }
            if (!values.getFirst().isEmpty()) {
                params.put(name, values.getFirst());
            }
        }
        return params;
    }

    /** The user signed in with this browser's session cookie, if any. */
    public Optional<Principal.User> signedIn(ServerRequest req) {
        return sessions.signedIn(req);
    }

    /** Whether a session meets what a request asks of the sign-in ({@code max_age}, {@code acr_values}). */
    enum Authentication {
        MET,
        /** Too old for {@code max_age}, or without the second factor asked for: sign in again. */
        SIGN_IN_AGAIN,
        /** Signed in again for this request and still without the second factor asked for. */
        UNMET
    }

    /** How long a {@code signed_in_after} marker counts: the time a user may take on the login page. */
    static final Duration SIGN_IN_AGAIN_WINDOW = Duration.ofMinutes(10);

    /**
     * Judges {@code user}'s session against {@code request}: its sign-in must be no older than {@code max_age}
     * (whole seconds, OIDC Core 3.1.2.1; 0 asks for a sign-in made for this request), and must have proved a second
     * factor when {@code acr_values} asks for one. A session started after the request's own {@code signed_in_after}
     * marker (Warden's, at most {@link #SIGN_IN_AGAIN_WINDOW} old) is fresh enough for any {@code max_age}, so that
     * {@code max_age=0} cannot send the user round forever.
     */
    Authentication authentication(Principal.User user, AuthorizationRequest request) {
        Instant now = clock.instant();
        Instant authTime = user.authTime().orElse(Instant.EPOCH);
        boolean fresh = request.signedInAfter()
                .filter(marker -> !marker.isBefore(now.minus(SIGN_IN_AGAIN_WINDOW)))
                .map(marker -> !authTime.isBefore(marker))
                .orElse(false);
        boolean recent = fresh
                || request.maxAge()
                        .map(max -> Duration.between(authTime, now).getSeconds() <= max.getSeconds())
                        .orElse(true);
        boolean factors = !request.secondFactor() || user.multiFactor();
        if (recent && factors) {
            return Authentication.MET;
        }
        return fresh ? Authentication.UNMET : Authentication.SIGN_IN_AGAIN;
    }

    /** Where to send a browser that is not signed in: the login page, then back to {@code authorizeUrl}. */
    public String loginLocation(String authorizeUrl) {
        return loginLocation(authorizeUrl, Optional.empty());
    }

    /**
     * The login page for a user who must sign in again, saying why ({@code why}: {@code max_age} or {@code mfa}),
     * then back to {@code authorizeUrl}.
     */
    String loginLocation(String authorizeUrl, Optional<String> why) {
        String reason = why.map(w -> "&why=" + w).orElse("");
        return loginPage
                .map(p -> p + (p.contains("?") ? "&" : "?") + "return_to="
                        + URLEncoder.encode(issuer.value() + authorizeUrl, StandardCharsets.UTF_8) + reason)
                .orElse("/oauth/login?return_to=" + URLEncoder.encode(authorizeUrl, StandardCharsets.UTF_8) + reason);
    }

    /** Where to ask for consent to {@code request}. */
    String consentLocation(AuthorizationRequest request) {
        String query = AuthorizationRequest.query(request.params());
        return consentPage.map(p -> p + (p.contains("?") ? "&" : "?") + query).orElse("/oauth/consent?" + query);
    }

    /**
     * True when {@code user} already allowed everything {@code request} asks for, so the code may be issued without
     * asking again. Never for a public client (RFC 8252 section 8.6): whoever builds the authorization link picks
     * its PKCE challenge, and a loopback port or a private-use scheme can be claimed by any program on the device,
     * so a code sent without the user's interaction could land with someone else. Its user answers the consent page
     * every time.
     */
    boolean consented(Principal.User user, AuthorizationRequest request) {
        return !request.client().isPublic()
                && consents.covers(
                        user.id().value(),
                        request.client().clientId(),
                        request.resource().uri(),
                        request.scopes());
    }

    /** Records consent and issues a code: the redirect that carries it. */
    AuthorizationRequest.Redirect approve(Principal.User user, AuthorizationRequest request, boolean remember) {
        Instant now = clock.instant();
        if (remember) {
            consents.remember(
                    user.id().value(),
                    request.client().clientId(),
                    request.resource().uri(),
                    request.scopes(),
                    now);
        }
        String code = Tokens.mint(TokenKind.AUTHORIZATION_CODE);
        codes.insert(
                Tokens.hash(code),
                new CodeRepository.Code(
                        request.client().clientId(),
                        user.id().value(),
                        Optional.of(user.tokenId()),
                        request.redirectUri(),
                        request.codeChallenge(),
                        String.join(" ", request.scopes()),
                        request.resource().uri(),
                        now.plus(codeTtl),
                        Optional.empty(),
                        Optional.empty()),
                now);
        return request.success(code, issuer);
    }

    /** The host the browser goes back to, as shown on the consent page. */
    static String redirectHost(String redirectUri) {
        try {
            URI uri = new URI(redirectUri);
            return uri.getHost() != null
                    ? uri.getHost() + (uri.getPort() > 0 ? ":" + uri.getPort() : "")
                    : uri.getScheme() + ":";
        } catch (URISyntaxException e) {
            return redirectUri;
        }
    }
}
