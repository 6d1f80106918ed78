package dev.warden.api.oauth.introspection;

import dev.warden.api.access.Access;
import dev.warden.api.auth.Tokens;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.OAuthException;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.RequestReader;
import dev.warden.api.oauth.clients.ClientAuthenticator;
import dev.warden.api.oauth.clients.OAuthClient;
import dev.warden.api.oauth.token.AccessTokens;
import dev.warden.api.oauth.token.GrantRepository;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;

/**
 * Token revocation (RFC 7009), {@code POST /oauth/revoke}: the client authenticates and names a token it was
 * issued. A refresh token revokes its whole grant (every access and refresh token of it, RFC 7009 section 2.1);
 * an access token is revoked until it expires. The answer is 200 with an empty body whatever the token was:
 * unknown, already revoked, or another client's (which is left alone), so it reveals nothing.
 */
public final class RevocationRoutes implements DeclaredService {
    private final ClientAuthenticator clients;
    private final GrantRepository grants;
    private final AccessTokens accessTokens;
    private final InstantSource clock;
    private final long maxBodyBytes;

    public RevocationRoutes(
            ClientAuthenticator clients,
            GrantRepository grants,
            AccessTokens accessTokens,
            InstantSource clock,
            long maxBodyBytes) {
        this.clients = clients;
        this.grants = grants;
        this.accessTokens = accessTokens;
        this.clock = clock;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.post("/", Access.open(), this::revoke);
    }

    private void revoke(ServerRequest req, ServerResponse res) {
        Map<String, String> form = RequestReader.readForm(req, maxBodyBytes);
        OAuthClient client = clients.authenticate(req, form);
        String token = Optional.ofNullable(form.get("token"))
                .orElseThrow(() -> OAuthException.invalidRequest("token is required"));
        String hint = form.getOrDefault("token_type_hint", "");
        if (!hint.isEmpty() && !hint.equals("access_token") && !hint.equals("refresh_token")) {
            throw new OAuthException(
                    ErrorCode.OAUTH_INVALID_REQUEST, "token_type_hint must be access_token or refresh_token");
        }
        if (AccessTokens.looksLikeJwt(token)) {
            accessTokens
                    .verify(token)
                    .filter(c -> c.clientId().equals(client.clientId()))
                    .ifPresent(c -> grants.revokeAccessToken(c.jti(), c.expiresAt(), clock.instant()));
        } else {
            grants.grantOfRefreshToken(Tokens.hash(token))
                    .filter(g -> g[0].equals(client.clientId()))
                    .ifPresent(g -> grants.revokeGrant(g[1], "revoked by the client", clock.instant()));
        }
        res.header(HeaderNames.CACHE_CONTROL, "no-store");
        res.status(Status.OK_200).send();
    }
}
