package dev.warden.api.oauth.token;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.auth.Tokens;
import dev.warden.api.errors.OAuthException;
import dev.warden.api.oauth.TokenGrant;
import dev.warden.api.oauth.clients.GrantTypes;
import dev.warden.api.oauth.clients.OAuthClient;
import dev.warden.runtime.db.Transactions;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code grant_type=refresh_token} (RFC 6749 section 6, OAuth 2.1 section 4.3): the token must be this client's,
 * unexpired, unused, and its grant usable. It is rotated: the answer carries a new refresh token and the old one
 * is spent. A spent token presented again means it was stolen or replayed, so the whole grant (every token of
 * the family, the new one included) is revoked. {@code scope} may only narrow (the new refresh token keeps the
 * grant's scope); {@code resource}, if sent, must be the grant's ({@code invalid_target}).
 */
final class RefreshTokenGrant implements TokenGrant {
    private final Transactions transactions;
    private final GrantRepository grants;
    private final TokenIssuer issuer;
    private final InstantSource clock;

    RefreshTokenGrant(Transactions transactions, GrantRepository grants, TokenIssuer issuer, InstantSource clock) {
        this.transactions = transactions;
        this.grants = grants;
        this.issuer = issuer;
        this.clock = clock;
    }

    private GrantOutcome reused(Connection conn, GrantRepository.Grant grant) throws SQLException {
        grants.revokeGrant(conn, grant.id(), "refresh token reused", clock.instant());
        return new GrantOutcome.Refused(
                OAuthException.invalidGrant(
                        "the refresh token was already used; every token of this grant is now revoked"),
                true);
    }

    @Override
    public String type() {
        return GrantTypes.REFRESH_TOKEN;
    }

    @Override
    public ObjectNode respond(OAuthClient client, Map<String, String> form, String ip) {
        return TokenResponses.pair(refresh(client, form));
    }

    TokenIssuer.TokenPair refresh(OAuthClient client, Map<String, String> form) {
        String token = AuthorizationCodeGrant.required(form, "refresh_token");
        Optional<String> scope = Optional.ofNullable(form.get("scope"));
        Optional<String> resource = Optional.ofNullable(form.get("resource"));
        byte[] hash = Tokens.hash(token);
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        GrantOutcome outcome = transactions.inTransaction(conn -> {
            Optional<GrantRepository.RefreshToken> found = grants.lockRefreshToken(conn, hash, now);
            if (found.isEmpty()) {
                return new GrantOutcome.Refused(OAuthException.invalidGrant("the refresh token is not valid"));
            }
            GrantRepository.RefreshToken rt = found.get();
            GrantRepository.Grant grant = rt.grant();
            if (!grant.clientId().equals(client.clientId())) {
                return new GrantOutcome.Refused(
                        OAuthException.invalidGrant("the refresh token was issued to another client"));
            }
            if (rt.usedAt().isPresent()) {
                return reused(conn, grant);
            }
            if (!rt.grantUsable() || !rt.expiresAt().isAfter(now)) {
                return new GrantOutcome.Refused(
                        OAuthException.invalidGrant("the refresh token has expired or was revoked"));
            }
            if (resource.isPresent() && !resource.get().equals(grant.resource())) {
                return new GrantOutcome.Refused(OAuthException.invalidTarget("resource differs from the grant's"));
            }
            List<String> granted = Arrays.asList(grant.scope().split(" "));
            List<String> scopes = granted;
            if (scope.isPresent()) {
                scopes = Arrays.stream(scope.get().split(" "))
                        .filter(s -> !s.isEmpty())
                        .distinct()
                        .toList();
                if (scopes.isEmpty() || !granted.containsAll(scopes)) {
                    return new GrantOutcome.Refused(
                            OAuthException.invalidScope("scope may only narrow the grant's scope"));
                }
            }
            if (!grants.markUsed(conn, hash, now)) {
                return reused(conn, grant);
            }
            return new GrantOutcome.Issued(issuer.issue(conn, grant, scopes, now));
        });
        grants.committed(outcome);
        return issuer.sign(outcome.pairOrThrow());
    }
}
