package dev.warden.api.oauth.authorize;

import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.InvalidInputException;
import dev.warden.api.errors.OAuthException;
import dev.warden.api.oauth.Issuer;
import dev.warden.api.oauth.ProtectedResources;
import dev.warden.api.oauth.clients.Clients;
import dev.warden.api.oauth.clients.GrantTypes;
import dev.warden.api.oauth.clients.OAuthClient;
import dev.warden.api.oauth.clients.RedirectUris;
import dev.warden.pipeline.contract.CleanText;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * An authorization request (RFC 6749 section 4.1.1 with PKCE and RFC 8707 {@code resource}), validated in the
 * order the RFC demands: first the client and its redirect URI. Until both are known good nothing is redirected
 * anywhere: an {@link InvalidInputException} is shown as a page. After that a problem goes back to a vetted
 * client as an error redirect ({@link Redirect}) carrying {@code state} and {@code iss} (RFC 9207); for any other
 * client (dynamically registered, or a metadata document) it stays a page naming the destination, so Warden is
 * nobody's open redirector (RFC 9700 section 4.11.2).
 *
 * @param maxAge the longest time since the user signed in that the client accepts ({@code max_age}, OIDC Core
 *     3.1.2.1), if it asked
 * @param secondFactor whether {@code acr_values} asks for a second factor ({@link #SECOND_FACTOR_ACR})
 * @param signedInAfter Warden's own marker ({@code signed_in_after}, epoch seconds), added when it sent the user to
 *     sign in again for this request: a session started since then is fresh enough
 * @param params the request's parameters as sent (carried through the login and consent pages)
 */
public record AuthorizationRequest(
        OAuthClient client,
        String redirectUri,
        Optional<String> state,
        String codeChallenge,
        ProtectedResources.Resource resource,
        List<String> scopes,
        Optional<Duration> maxAge,
        boolean secondFactor,
        Optional<Instant> signedInAfter,
        Map<String, String> params) {

    /**
     * The {@code acr_values} that ask for a second factor: Warden's {@code mfa}, and the PAPE multi-factor policy URI
     * some clients send. Others are ignored (they are voluntary, OIDC Core 3.1.2.1).
     */
    public static final List<String> SECOND_FACTOR_ACR =
            List.of("mfa", "http://schemas.openid.net/pape/policies/2007/06/multi-factor");

    /** The marker Warden adds when it sends the user to sign in again for a request. */
    static final String SIGNED_IN_AFTER = "signed_in_after";

    /** The parameters an authorization request may carry (others are ignored, RFC 6749 section 3.1). */
    static final Set<String> PARAMETERS = Set.of(
            "response_type",
            "client_id",
            "redirect_uri",
            "state",
            "scope",
            "code_challenge",
            "code_challenge_method",
            "resource",
            "max_age",
            "acr_values",
            SIGNED_IN_AFTER);

    private static final int MAX_PARAM = 2048;

    /** A redirect back to the client. */
    public record Redirect(String location) {}

    /** A problem found once the redirect URI is trusted: sent back to the client. */
    static final class RedirectedError extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient Redirect redirect;

        RedirectedError(Redirect redirect) {
            super(null, null, false, false);
            this.redirect = redirect;
        }

        Redirect redirect() {
            return redirect;
        }
    }

    /**
     * Validates {@code params} (each name once).
     *
     * @throws InvalidInputException before the client and redirect URI are validated (show a page)
     * @throws RedirectedError       after (send the browser back to the client with the error)
     */
    static AuthorizationRequest validate(
            Map<String, String> params, Clients clients, ProtectedResources resources, Issuer issuer) {
        Map<String, String> kept = new LinkedHashMap<>();
        params.forEach((k, v) -> {
            if (PARAMETERS.contains(k)) {
                if (v.length() > MAX_PARAM || CleanText.problem(v).isPresent()) {
                    throw new InvalidInputException(ErrorCode.BAD_REQUEST, k + " is not acceptable");
                }
                kept.put(k, v);
            }
        });
        String clientId = Optional.ofNullable(kept.get("client_id"))
                .orElseThrow(() -> new InvalidInputException(ErrorCode.BAD_REQUEST, "client_id is required"));
        OAuthClient client;
        try {
            client = clients.find(clientId)
                    .orElseThrow(() ->
                            new InvalidInputException(ErrorCode.BAD_REQUEST, "the client is not known to this server"));
        } catch (OAuthException e) {
            throw new InvalidInputException(ErrorCode.BAD_REQUEST, e.detail().orElse("the client is not acceptable"));
        }
        String redirectUri = Optional.ofNullable(kept.get("redirect_uri"))
                .or(() -> client.redirectUris().size() == 1
                        ? Optional.of(client.redirectUris().getFirst())
                        : Optional.empty())
                .orElseThrow(() -> new InvalidInputException(ErrorCode.BAD_REQUEST, "redirect_uri is required"));
        if (!RedirectUris.matches(client.redirectUris(), redirectUri)) {
            throw new InvalidInputException(ErrorCode.BAD_REQUEST, "redirect_uri is not one the client registered");
        }
        // From here on the redirect URI is the client's: errors go back to it if an administrator vetted the client,
        // else they are a page naming the destination (RFC 9700 section 4.11.2: no open redirector).
        Optional<String> state = Optional.ofNullable(kept.get("state"));
        if (!"code".equals(kept.get("response_type"))) {
            throw refused(
                    client,
                    redirectUri,
                    state,
                    issuer,
                    ErrorCode.OAUTH_UNSUPPORTED_RESPONSE_TYPE.code(),
                    "response_type must be code");
        }
        if (!client.allows(GrantTypes.AUTHORIZATION_CODE)) {
            throw refused(
                    client,
                    redirectUri,
                    state,
                    issuer,
                    ErrorCode.OAUTH_UNAUTHORIZED_CLIENT.code(),
                    "the client did not register the authorization_code grant");
        }
        String challenge = kept.get("code_challenge");
        if (challenge == null) {
            throw refused(client, redirectUri, state, issuer, "invalid_request", "code_challenge is required (PKCE)");
        }
        if (!Pkce.S256.equals(kept.get("code_challenge_method"))) {
            throw refused(client, redirectUri, state, issuer, "invalid_request", "code_challenge_method must be S256");
        }
        if (!Pkce.challengeFormatOk(challenge)) {
            throw refused(
                    client, redirectUri, state, issuer, "invalid_request", "code_challenge is not an S256 challenge");
        }
        ProtectedResources.Resource resource;
        List<String> scopes;
        try {
            resource = resources.resolve(Optional.ofNullable(kept.get("resource")));
            scopes = ProtectedResources.scopeFor(
                    resource, Optional.ofNullable(kept.get("scope")).or(client::scope));
        } catch (OAuthException e) {
            throw refused(
                    client, redirectUri, state, issuer, e.error(), e.detail().orElse(e.error()));
        }
        Optional<Duration> maxAge = Optional.empty();
        Optional<Instant> signedInAfter = Optional.empty();
        try {
            maxAge = Optional.ofNullable(kept.get("max_age")).map(v -> Duration.ofSeconds(seconds(v)));
            signedInAfter = Optional.ofNullable(kept.get(SIGNED_IN_AFTER)).map(v -> Instant.ofEpochSecond(seconds(v)));
        } catch (NumberFormatException e) {
            throw refused(
                    client,
                    redirectUri,
                    state,
                    issuer,
                    "invalid_request",
                    "max_age must be a whole number of seconds, 0 or more");
        }
        boolean secondFactor = Optional.ofNullable(kept.get("acr_values"))
                .map(v -> List.of(v.split(" ")).stream().anyMatch(SECOND_FACTOR_ACR::contains))
                .orElse(false);
        return new AuthorizationRequest(
                client,
                redirectUri,
                state,
                challenge,
                resource,
                scopes,
                maxAge,
                secondFactor,
                signedInAfter,
                Map.copyOf(kept));
    }

    /** A count of seconds: digits only, at most ten of them. */
    private static long seconds(String value) {
        if (value.isEmpty() || value.length() > 10 || !value.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new NumberFormatException(value);
        }
        return Long.parseLong(value);
    }

    /** This request, marked to accept a session started at {@code now} or later (after signing in again). */
    String querySignedInAfter(Instant now) {
        Map<String, String> marked = new LinkedHashMap<>(params);
        marked.put(SIGNED_IN_AFTER, Long.toString(now.getEpochSecond()));
        return query(marked);
    }

    /** The redirect carrying {@code code}. */
    Redirect success(String code, Issuer issuer) {
        Map<String, String> answer = new LinkedHashMap<>();
        answer.put("code", code);
        state.ifPresent(s -> answer.put("state", s));
        answer.put("iss", issuer.value());
        return new Redirect(append(redirectUri, answer));
    }

    /** The redirect carrying {@code error}. */
    Redirect error(String error, String description, Issuer issuer) {
        return redirected(redirectUri, state, issuer, error, description).redirect();
    }

    /**
     * A problem with a request whose redirect URI is the client's: an error redirect for a vetted client
     * ({@link OAuthClient#redirectsVetted}), else a page that names where the answer would have gone and does not
     * send the browser there.
     */
    private static RuntimeException refused(
            OAuthClient client,
            String redirectUri,
            Optional<String> state,
            Issuer issuer,
            String error,
            String description) {
        if (client.redirectsVetted()) {
            return redirected(redirectUri, state, issuer, error, description);
        }
        return new InvalidInputException(
                ErrorCode.BAD_REQUEST,
                description + " (" + error + "). The application "
                        + client.displayName() + " asked for this sign-in; its answer would go to "
                        + AuthorizationFlow.redirectHost(redirectUri)
                        + ", and Warden does not send you there with an error.");
    }

    static RedirectedError redirected(
            String redirectUri, Optional<String> state, Issuer issuer, String error, String description) {
        Map<String, String> answer = new LinkedHashMap<>();
        answer.put("error", error);
        answer.put("error_description", description);
        state.ifPresent(s -> answer.put("state", s));
        answer.put("iss", issuer.value());
        return new RedirectedError(new Redirect(append(redirectUri, answer)));
    }

    /** {@code params} as a query string in this order. */
    static String query(Map<String, String> params) {
        StringBuilder q = new StringBuilder();
        params.forEach((k, v) -> {
            if (!q.isEmpty()) {
                q.append('&');
            }
            q.append(URLEncoder.encode(k, StandardCharsets.UTF_8))
                    .append('=')
                    .append(URLEncoder.encode(v, StandardCharsets.UTF_8));
        });
        return q.toString();
    }

    private static String append(String uri, Map<String, String> params) {
        return uri + (uri.contains("?") ? "&" : "?") + query(params);
    }
}
