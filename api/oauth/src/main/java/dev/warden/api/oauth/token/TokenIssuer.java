package dev.warden.api.oauth.token;

import dev.warden.api.auth.TokenKind;
import dev.warden.api.auth.Tokens;
import dev.warden.api.events.EventOutbox;
import dev.warden.api.oauth.clients.OAuthClient;
import dev.warden.api.users.audit.AccountAudit;
import dev.warden.authorizer.domain.UserId;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Starts a user's grants and issues their token pairs: an access token (JWT) and a fresh refresh token, stored as
 * its SHA-256 in the same transaction as the grant change that earned it. A refresh token never outlives its
 * grant. The access token is signed by {@link #sign} once that transaction has committed: signing holds no
 * connection, and a signing key being loaded or rotated never waits on a pool the token requests themselves hold.
 */
final class TokenIssuer {
    private final AccessTokens accessTokens;
    private final GrantRepository grants;
    private final EventOutbox outbox;
    private final Duration refreshTtl;
    private final Duration grantLifetime;

    TokenIssuer(
            AccessTokens accessTokens,
            GrantRepository grants,
            EventOutbox outbox,
            Duration refreshTtl,
            Duration grantLifetime) {
        this.accessTokens = accessTokens;
        this.grants = grants;
        this.outbox = outbox;
        this.refreshTtl = refreshTtl;
        this.grantLifetime = grantLifetime;
    }

    /** The answer of a token request. */
    record TokenPair(AccessTokens.Issued access, String refreshToken) {}

    /** A pair decided (and its refresh token stored) in a grant's transaction, its access token not yet signed. */
    record Pending(AccessTokens.Spec access, String refreshToken) {}

    /** A grant just started, with its first token pair. */
    record Started(GrantRepository.Grant grant, Pending pair) {}

    /**
     * Starts a grant of {@code client} by {@code userId} (an authorization code redeemed, a device approved), issues
     * its first pair and emits {@code auth.signin} with method {@code oauth_<grantType>}, all in {@code conn}'s
     * transaction.
     */
    Started start(
            Connection conn,
            OAuthClient client,
            String userId,
            Optional<String> sessionId,
            String scope,
            String resource,
            String grantType,
            String ip,
            Instant now)
            throws SQLException {
        // How the user signed in: the browser session's methods and time, carried by every token of the grant.
        Optional<GrantRepository.Authentication> authentication =
                sessionId.isPresent() ? grants.sessionAuthentication(conn, sessionId.get()) : Optional.empty();
        GrantRepository.Grant grant = new GrantRepository.Grant(
                UUID.randomUUID().toString(),
                client.clientId(),
                userId,
                sessionId,
                scope,
                resource,
                now,
                now.plus(grantLifetime),
                authentication.map(GrantRepository.Authentication::amr).orElse(List.of()),
                authentication.map(GrantRepository.Authentication::authTime));
        grants.insertGrant(conn, grant);
        // A person authorized a client: in the audit log (and the SIEM, as OCSF Authentication) with the grant.
        EventOutbox.appendAudit(
                conn,
                AccountAudit.entry(
                                "oauth-grant.created",
                                UserId.of(userId),
                                "oauth-client",
                                client.clientId(),
                                Map.of(
                                        "grant", grant.id(),
                                        "grantType", grantType,
                                        "scope", scope,
                                        "resource", resource),
                                now)
                        .withCallerIp(ip));
        Pending pair = issue(conn, grant, List.of(scope.split(" ")), now);
        EventOutbox.append(conn, OAuthEvents.granted(grant, client, grantType, ip, now));
        return new Started(grant, pair);
    }

    /** Stores a new refresh token of {@code grant} in {@code conn}'s transaction; the pair, to sign once committed. */
    Pending issue(Connection conn, GrantRepository.Grant grant, List<String> scopes, Instant now) throws SQLException {
        String refresh = Tokens.mint(TokenKind.REFRESH);
        Instant refreshEnd = refreshEnd(now);
        grants.insertRefreshToken(
                conn,
                Tokens.hash(refresh),
                grant.id(),
                now,
                refreshEnd.isAfter(grant.expiresAt()) ? grant.expiresAt() : refreshEnd);
        return pending(grant, scopes, refresh);
    }

    /** When a refresh token issued at {@code now} ends, unless its grant ends first. */
    Instant refreshEnd(Instant now) {
        return now.plus(refreshTtl);
    }

    /** The pair of {@code grant}'s stored refresh token {@code refresh}, its access token for {@code scopes}. */
    Pending pending(GrantRepository.Grant grant, List<String> scopes, String refresh) {
        AccessTokens.Spec access = new AccessTokens.Spec(
                grant.userId(),
                AccessTokens.SubjectKind.USER,
                grant.clientId(),
                scopes,
                grant.resource(),
                grant.id(),
                List.of(),
                Optional.empty(),
                accessTokens.ttl(),
                grant.amr(),
                grant.authTime(),
                Optional.empty());
        return new Pending(access, refresh);
    }

    /** Signs the access token of a pair whose transaction has committed. */
    TokenPair sign(Pending pair) {
        return new TokenPair(accessTokens.issue(pair.access()), pair.refreshToken());
    }

    /**
     * Signs the first pair of a grant {@link #start started} in a transaction that has committed, once that
     * transaction's {@code auth.signin} is on {@code warden.events}: the token endpoint answers no request before the
     * events it caused are published, so a later token issued to an agent, whose event is published at once (D198),
     * never comes before it. If Kafka cannot take it now, the outbox's relay publishes it later.
     */
    TokenPair signStarted(Pending pair) {
        outbox.flush();
        return sign(pair);
    }
}
