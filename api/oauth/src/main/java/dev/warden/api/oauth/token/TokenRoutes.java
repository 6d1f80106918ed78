package dev.warden.api.oauth.token;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.OAuthException;
import dev.warden.api.events.PublishedEvents;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.RequestReader;
import dev.warden.api.http.Responses;
import dev.warden.api.oauth.TokenGrant;
import dev.warden.api.oauth.clients.ClientAuthenticator;
import dev.warden.api.oauth.clients.OAuthClient;
import dev.warden.api.ratelimit.ClientIp;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;

/**
 * The token endpoint, {@code POST /} of {@code /mcp/token} and {@code /oauth/token}
 * ({@code application/x-www-form-urlencoded}): the client authenticates ({@link ClientAuthenticator}), then
 * {@code grant_type} picks one of the server's {@link TokenGrants} ({@code unsupported_grant_type} for another),
 * which the client must have registered ({@code unauthorized_client}): {@code authorization_code},
 * {@code refresh_token}, the device code (RFC 8628), {@code client_credentials} (bound service agents), token
 * exchange (RFC 8693), and any grant added to the list. The answer is
 * {@code {access_token, token_type: "Bearer", expires_in, refresh_token, scope}} ({@code refresh_token} only for
 * a user's grant; token exchange adds {@code issued_token_type}) with {@code Cache-Control: no-store}; errors are
 * RFC 6749 bodies (the mount's error surface) and each refusal emits {@code auth.failed}, acknowledged by Kafka
 * before the refusal is answered (a device still waiting for its user, {@code authorization_pending} or
 * {@code slow_down}, emits none). Every event a request caused is on {@code warden.events} before its answer
 * (D198). The per-IP limit (20 a minute) is the rate-limit filter's.
 */
public final class TokenRoutes implements DeclaredService {
    private final ClientAuthenticator clients;
    private final TokenGrants grants;
    private final PublishedEvents events;
    private final ClientIp clientIp;
    private final InstantSource clock;
    private final long maxBodyBytes;

    public TokenRoutes(
            ClientAuthenticator clients,
            TokenGrants grants,
            PublishedEvents events,
            ClientIp clientIp,
            InstantSource clock,
            long maxBodyBytes) {
        this.clients = clients;
        this.grants = grants;
        this.events = events;
        this.clientIp = clientIp;
        this.clock = clock;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        // Open at the filter: the client authenticates itself here, by secret or (public clients) by PKCE.
        rules.post("/", Access.open(), this::token);
    }

    private void token(ServerRequest req, ServerResponse res) {
        Map<String, String> form = RequestReader.readForm(req, maxBodyBytes);
        String grantType = Optional.ofNullable(form.get("grant_type"))
                .orElseThrow(() -> OAuthException.invalidRequest("grant_type is required"));
        String ip = clientIp.text(req);
        ObjectNode body;
        try {
            OAuthClient client = clients.authenticate(req, form);
            TokenGrant grant = grants.find(grantType)
                    .orElseThrow(() -> new OAuthException(
                            ErrorCode.OAUTH_UNSUPPORTED_GRANT_TYPE,
                            "grant_type must be one of " + String.join(", ", grants.types())));
            if (!client.allows(grant.type())) {
                throw new OAuthException(
                        ErrorCode.OAUTH_UNAUTHORIZED_CLIENT,
                        "this client did not register the " + grant.type() + " grant type");
            }
            body = grant.respond(client, form, ip);
        } catch (OAuthException e) {
            if (e.code() == ErrorCode.OAUTH_AUTHORIZATION_PENDING || e.code() == ErrorCode.OAUTH_SLOW_DOWN) {
                throw e; // a device waiting for its user is not a failed sign-in
            }
            events.publish(OAuthEvents.failed(
                    Optional.ofNullable(form.get("client_id")), e.error(), grantType, ip, clock.instant()));
            throw e;
        }
        res.header(HeaderNames.create("Pragma"), "no-cache");
        Responses.json(res, Status.OK_200, body);
    }
}
