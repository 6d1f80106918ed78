package dev.warden.api.oauth.introspection;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.auth.Tokens;
import dev.warden.api.errors.OAuthException;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.RequestReader;
import dev.warden.api.http.Responses;
import dev.warden.api.oauth.Issuer;
import dev.warden.api.oauth.ProtectedResources;
import dev.warden.api.oauth.clients.ClientAuthenticator;
import dev.warden.api.oauth.token.AccessTokens;
import dev.warden.api.oauth.token.GrantRepository;
import dev.warden.api.oauth.token.TokenValidity;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;

/**
 * Token introspection (RFC 7662), {@code POST /oauth/introspect}: only authenticated clients may ask, and each
 * learns only about the tokens it may ({@link ProtectedResources#mayIntrospect}): its own, and, for the servers of
 * a configured resource, the access tokens issued for that resource. Anyone may register a confidential client,
 * so being one proves nothing more. An active token answers
 * {@code {active: true, scope, client_id, sub, aud, iss, exp, iat, token_type, jti}}; anything not currently valid
 * (unknown, expired, revoked, its grant or the user's session ended) or not the caller's to ask about answers only
 * {@code {active: false}}.
 */
public final class IntrospectionRoutes implements DeclaredService {
    private final ClientAuthenticator clients;
    private final GrantRepository grants;
    private final TokenValidity validity;
    private final AccessTokens accessTokens;
    private final Issuer issuer;
    private final ProtectedResources resources;
    private final InstantSource clock;
    private final long maxBodyBytes;

    public IntrospectionRoutes(
            ClientAuthenticator clients,
            GrantRepository grants,
            TokenValidity validity,
            AccessTokens accessTokens,
            Issuer issuer,
            ProtectedResources resources,
            InstantSource clock,
            long maxBodyBytes) {
        this.clients = clients;
        this.grants = grants;
        this.validity = validity;
        this.accessTokens = accessTokens;
        this.issuer = issuer;
        this.resources = resources;
        this.clock = clock;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.post("/", Access.open(), this::introspect);
    }

    private void introspect(ServerRequest req, ServerResponse res) {
        Map<String, String> form = RequestReader.readForm(req, maxBodyBytes);
        var client = clients.authenticate(req, form);
        String token = Optional.ofNullable(form.get("token"))
                .orElseThrow(() -> OAuthException.invalidRequest("token is required"));
        Instant now = clock.instant();
        ObjectNode body = Json.mapper().createObjectNode();
        Optional<AccessTokens.Claims> access = accessTokens
                .verify(token)
                .filter(c -> validity.isActive(c, now))
                .filter(c ->
                        resources.mayIntrospect(client.clientId(), !client.isPublic(), c.clientId(), c.audience()));
        if (access.isPresent()) {
            AccessTokens.Claims c = access.get();
            body.put("active", true)
                    .put("scope", String.join(" ", c.scopes()))
                    .put("client_id", c.clientId())
                    .put("sub", c.subject())
                    .put("aud", c.audience())
                    .put("iss", issuer.canonical())
                    .put("exp", c.expiresAt().getEpochSecond())
                    .put("iat", c.issuedAt().getEpochSecond())
                    .put("token_type", "Bearer")
                    .put("jti", c.jti());
            if (c.subjectKind() == AccessTokens.SubjectKind.AGENT) {
                body.put("sub_kind", "agent");
            }
            c.actClaim().ifPresent(act -> body.set("act", Json.mapper().valueToTree(act)));
        } else {
            Optional<GrantRepository.RefreshToken> refresh = AccessTokens.looksLikeJwt(token)
                    ? Optional.empty()
                    : grants.findRefreshToken(Tokens.hash(token), now)
                            .filter(r -> r.usedAt().isEmpty()
                                    && r.grantUsable()
                                    && r.expiresAt().isAfter(now))
                            .filter(r -> r.grant().clientId().equals(client.clientId()));
            if (refresh.isPresent()) {
                GrantRepository.Grant g = refresh.get().grant();
                body.put("active", true)
                        .put("scope", g.scope())
                        .put("client_id", g.clientId())
                        .put("sub", g.userId())
                        .put("aud", g.resource())
                        .put("iss", issuer.canonical())
                        .put("exp", refresh.get().expiresAt().getEpochSecond())
                        .put("token_type", "refresh_token");
            } else {
                body.put("active", false);
            }
        }
        Responses.json(res, Status.OK_200, body);
    }
}
