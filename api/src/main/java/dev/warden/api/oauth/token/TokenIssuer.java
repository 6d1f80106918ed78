package dev.warden.api.oauth.token;

import dev.warden.api.auth.TokenKind;
import dev.warden.api.auth.Tokens;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Issues the token pair of a grant: an access token (JWT) and a fresh refresh token, stored as its SHA-256 in
 * the same transaction as the grant change that earned it. A refresh token never outlives its grant.
 */
final class TokenIssuer {
    private final AccessTokens accessTokens;
    private final GrantRepository grants;
    private final Duration refreshTtl;

    TokenIssuer(AccessTokens accessTokens, GrantRepository grants, Duration refreshTtl) {
        this.accessTokens = accessTokens;
        this.grants = grants;
        this.refreshTtl = refreshTtl;
    }

    /** The answer of a token request. */
    record TokenPair(AccessTokens.Issued access, String refreshToken) {
    }

    TokenPair issue(Connection conn, GrantRepository.Grant grant, List<String> scopes, Instant now) throws SQLException {
        String refresh = Tokens.mint(TokenKind.REFRESH);
        Instant refreshEnd = now.plus(refreshTtl);
        grants.insertRefreshToken(conn, Tokens.hash(refresh), grant.id(), now,
                refreshEnd.isAfter(grant.expiresAt()) ? grant.expiresAt() : refreshEnd);
        AccessTokens.Issued access = accessTokens.issue(grant.userId(), grant.clientId(), scopes, grant.resource(),
                grant.id());
        return new TokenPair(access, refresh);
    }
}
