package dev.warden.api.oauth.clients;

import dev.warden.api.auth.Tokens;
import dev.warden.api.errors.OAuthException;
import dev.warden.pipeline.contract.CleanText;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.ServerRequest;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;

/**
 * Client authentication at the token, revocation and introspection endpoints (RFC 6749 section 2.3): HTTP Basic
 * with the URL-encoded id and secret ({@code client_secret_basic}), the secret in the form
 * ({@code client_secret_post}), or only {@code client_id} for a public client ({@code none}). One method per
 * request, the one the client registered; a confidential client must send its secret; secrets compare as SHA-256
 * hashes in constant time. Every failure is {@code invalid_client}; before the secret is proven it says nothing
 * about which part was wrong.
 */
public final class ClientAuthenticator {
    private final Clients clients;
    private final InstantSource clock;

    public ClientAuthenticator(Clients clients, InstantSource clock) {
        this.clients = clients;
        this.clock = clock;
    }

    /**
     * The client that sent {@code req} with form {@code form}.
     *
     * @throws OAuthException {@code invalid_client} or {@code invalid_request}
     */
    public OAuthClient authenticate(ServerRequest req, Map<String, String> form) {
        Optional<String> header =
                req.headers().first(HeaderNames.AUTHORIZATION).filter(h -> h.regionMatches(true, 0, "Basic ", 0, 6));
        if (header.isPresent()) {
            if (form.containsKey("client_secret")) {
                throw OAuthException.invalidRequest("use one client authentication method, not two");
            }
            String[] idSecret = basic(header.get().substring(6).strip());
            if (form.containsKey("client_id") && !form.get("client_id").equals(idSecret[0])) {
                throw OAuthException.invalidRequest("client_id differs from the authenticated client");
            }
            OAuthClient client = clients.find(idSecret[0])
                    .filter(c -> !c.isPublic())
                    .orElseThrow(() -> OAuthException.basicClientFailure("client authentication failed"));
            if (!secretMatches(client, idSecret[1])) {
                throw OAuthException.basicClientFailure("client authentication failed");
            }
            return registeredFor(client, OAuthClient.BASIC);
        }
        String clientId = Optional.ofNullable(form.get("client_id"))
                .orElseThrow(() -> OAuthException.invalidClient("client authentication is required (client_id)"));
        OAuthClient client =
                clients.find(clientId).orElseThrow(() -> OAuthException.invalidClient("client authentication failed"));
        Optional<String> secret = Optional.ofNullable(form.get("client_secret"));
        if (client.isPublic()) {
            if (secret.isPresent()) {
                throw OAuthException.invalidClient("client authentication failed");
            }
            return client;
        }
        if (secret.isEmpty() || !secretMatches(client, secret.get())) {
            throw OAuthException.invalidClient("client authentication failed");
        }
        return registeredFor(client, OAuthClient.POST);
    }

    /**
     * {@code client}, when {@code used} is the {@code token_endpoint_auth_method} it registered (RFC 7591
     * section 2): a secret registered for one method is not accepted through the other. Said only to a caller that
     * proved the secret.
     */
    private static OAuthClient registeredFor(OAuthClient client, String used) {
        if (!client.authMethod().equals(used)) {
            throw OAuthException.invalidClient(
                    "this client registered token_endpoint_auth_method " + client.authMethod() + ", not " + used);
        }
        return client;
    }

    private boolean secretMatches(OAuthClient client, String secret) {
        boolean same = Tokens.sameHash(client.secretHash().orElseThrow(), Tokens.hash(secret));
        return same
                && client.secretExpiresAt().map(e -> e.isAfter(clock.instant())).orElse(true);
    }

    /**
     * {@code [id, secret]} of a Basic credential, each URL-decoded (RFC 6749 section 2.3.1) and held to the text
     * rule of every other input (no U+0000, no lone surrogate): anything else is {@code invalid_client}.
     */
    private static String[] basic(String encoded) {
        try {
            String decoded = new String(Base64.getDecoder().decode(encoded), StandardCharsets.UTF_8);
            int colon = decoded.indexOf(':');
            if (colon < 0) {
                throw OAuthException.basicClientFailure("the Basic credential is malformed");
            }
            String[] idSecret = {
                URLDecoder.decode(decoded.substring(0, colon), StandardCharsets.UTF_8),
                URLDecoder.decode(decoded.substring(colon + 1), StandardCharsets.UTF_8)
            };
            // Form fields pass the input contract as they are read; the decoded Basic credential is checked here.
            if (!CleanText.isClean(idSecret[0]) || !CleanText.isClean(idSecret[1])) {
                throw OAuthException.basicClientFailure("the Basic credential is malformed");
            }
            return idSecret;
        } catch (IllegalArgumentException e) {
            throw OAuthException.basicClientFailure("the Basic credential is malformed");
        }
    }
}
