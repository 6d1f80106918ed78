package dev.warden.api.oauth.token;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.db.Database;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.OAuthException;
import dev.warden.api.events.EventOutbox;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.RequestReader;
import dev.warden.api.http.Responses;
import dev.warden.api.oauth.OAuthConfig;
import dev.warden.api.oauth.ProtectedResources;
import dev.warden.api.oauth.agents.AgentDirectory;
import dev.warden.api.oauth.device.DeviceAuthorizationRoutes;
import dev.warden.api.oauth.device.DeviceCodes;
import dev.warden.api.oauth.authorize.CodeRepository;
import dev.warden.api.oauth.clients.ClientAuthenticator;
import dev.warden.api.oauth.clients.OAuthClient;
import dev.warden.api.ratelimit.ClientIp;
import dev.warden.pipeline.contract.Json;
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
 * {@code grant_type} picks the grant: {@code authorization_code}, {@code refresh_token}, the device code (RFC
 * 8628), {@code client_credentials} (bound service agents) or token exchange (RFC 8693). The answer is
 * {@code {access_token, token_type: "Bearer", expires_in, refresh_token, scope}} ({@code refresh_token} only for
 * a user's grant; token exchange adds {@code issued_token_type}) with {@code Cache-Control: no-store}; errors are
 * RFC 6749 bodies (the mount's error surface) and each refusal emits {@code auth.failed} (a device still
 * waiting for its user, {@code authorization_pending} or {@code slow_down}, does not). The per-IP limit (20 a
 * minute) is the rate-limit filter's.
 */
public final class TokenRoutes implements DeclaredService {
    private final ClientAuthenticator clients;
    private final AuthorizationCodeGrant codeGrant;
    private final RefreshTokenGrant refreshGrant;
    private final DeviceCodeGrant deviceGrant;
    private final ClientCredentialsGrant clientCredentials;
    private final TokenExchangeGrant exchange;
    private final Database db;
    private final ClientIp clientIp;
    private final InstantSource clock;
    private final long maxBodyBytes;

    public TokenRoutes(ClientAuthenticator clients, CodeRepository codes, DeviceCodes deviceCodes, GrantRepository grants,
                       AccessTokens accessTokens, ProtectedResources resources, AgentDirectory directory,
                       OAuthConfig config, Database db, ClientIp clientIp, InstantSource clock, long maxBodyBytes) {
        this.clients = clients;
        TokenIssuer issuer = new TokenIssuer(accessTokens, grants, config.refreshTokenTtl(), config.grantMaxLifetime());
        this.codeGrant = new AuthorizationCodeGrant(codes, grants, issuer, clock);
        this.refreshGrant = new RefreshTokenGrant(grants, issuer, clock);
        this.deviceGrant = new DeviceCodeGrant(deviceCodes, issuer, clock);
        AgentTokenIssuer agentIssuer = new AgentTokenIssuer(accessTokens, grants.agentGrants(),
                config.effectiveAgentTokenTtl());
        this.clientCredentials = new ClientCredentialsGrant(directory.delegations(), directory.policies(), resources,
                agentIssuer, clock);
        this.exchange = new TokenExchangeGrant(accessTokens, grants, directory, resources, agentIssuer, clock);
        this.db = db;
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
            body = switch (grantType) {
                case "authorization_code" -> pair(codeGrant.exchange(client, form, ip));
                case RefreshTokenGrant.GRANT_TYPE -> pair(refreshGrant.refresh(client, form));
                case DeviceAuthorizationRoutes.GRANT_TYPE -> pair(deviceGrant.poll(client, form, ip));
                case ClientCredentialsGrant.GRANT_TYPE -> access(clientCredentials.issue(client, form, ip));
                case TokenExchangeGrant.GRANT_TYPE -> access(exchange.exchange(client, form, ip))
                        .put("issued_token_type", TokenExchangeGrant.ACCESS_TOKEN_TYPE);
                default -> throw new OAuthException(ErrorCode.OAUTH_UNSUPPORTED_GRANT_TYPE, "grant_type must be "
                        + "authorization_code, refresh_token, client_credentials, " + DeviceAuthorizationRoutes.GRANT_TYPE
                        + " or " + TokenExchangeGrant.GRANT_TYPE);
            };
        } catch (OAuthException e) {
            if (e.code() == ErrorCode.OAUTH_AUTHORIZATION_PENDING || e.code() == ErrorCode.OAUTH_SLOW_DOWN) {
                throw e; // a device waiting for its user is not a failed sign-in
            }
            db.withConnection(conn -> {
                EventOutbox.append(conn, OAuthEvents.failed(Optional.ofNullable(form.get("client_id")), e.error(),
                        grantType, ip, clock.instant()));
                return null;
            });
            throw e;
        }
        res.header(HeaderNames.create("Pragma"), "no-cache");
        Responses.json(res, Status.OK_200, body);
    }

    /** The answer carrying an access token and a refresh token (a user's grant). */
    private static ObjectNode pair(TokenIssuer.TokenPair pair) {
        ObjectNode body = access(pair.access());
        body.put("refresh_token", pair.refreshToken());
        body.set("scope", body.remove("scope"));
        return body;
    }

    /** The answer carrying an access token only. */
    private static ObjectNode access(AccessTokens.Issued access) {
        return Json.mapper().createObjectNode()
                .put("access_token", access.token())
                .put("token_type", "Bearer")
                .put("expires_in", access.expiresIn())
                .put("scope", String.join(" ", access.claims().scopes()));
    }
}
