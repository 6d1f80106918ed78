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
 * {@code grant_type} picks the grant. The answer is {@code {access_token, token_type: "Bearer", expires_in,
 * refresh_token, scope}} with {@code Cache-Control: no-store}; errors are RFC 6749 bodies (the mount's error
 * surface) and each refusal emits {@code auth.failed}. The per-IP limit (20 a minute) is the rate-limit filter's.
 */
public final class TokenRoutes implements DeclaredService {
    private final ClientAuthenticator clients;
    private final AuthorizationCodeGrant codeGrant;
    private final RefreshTokenGrant refreshGrant;
    private final Database db;
    private final ClientIp clientIp;
    private final InstantSource clock;
    private final long maxBodyBytes;

    public TokenRoutes(ClientAuthenticator clients, CodeRepository codes, GrantRepository grants, AccessTokens accessTokens,
                       OAuthConfig config, Database db, ClientIp clientIp, InstantSource clock, long maxBodyBytes) {
        this.clients = clients;
        TokenIssuer issuer = new TokenIssuer(accessTokens, grants, config.refreshTokenTtl());
        this.codeGrant = new AuthorizationCodeGrant(codes, grants, issuer, config.grantMaxLifetime(), clock);
        this.refreshGrant = new RefreshTokenGrant(grants, issuer, clock);
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
        TokenIssuer.TokenPair pair;
        try {
            OAuthClient client = clients.authenticate(req, form);
            pair = switch (grantType) {
                case "authorization_code" -> codeGrant.exchange(client, form, ip);
                case "refresh_token" -> refreshGrant.refresh(client, form);
                default -> throw new OAuthException(ErrorCode.OAUTH_UNSUPPORTED_GRANT_TYPE,
                        "grant_type must be authorization_code or refresh_token");
            };
        } catch (OAuthException e) {
            db.withConnection(conn -> {
                EventOutbox.append(conn, OAuthEvents.failed(Optional.ofNullable(form.get("client_id")), e.error(),
                        grantType, ip, clock.instant()));
                return null;
            });
            throw e;
        }
        ObjectNode body = Json.mapper().createObjectNode()
                .put("access_token", pair.access().token())
                .put("token_type", "Bearer")
                .put("expires_in", pair.access().expiresIn())
                .put("refresh_token", pair.refreshToken())
                .put("scope", String.join(" ", pair.access().claims().scopes()));
        res.header(HeaderNames.create("Pragma"), "no-cache");
        Responses.json(res, Status.OK_200, body);
    }
}
