package dev.warden.api.oauth.token;

import dev.warden.api.auth.CredentialRevocations;
import dev.warden.api.events.EventOutbox;
import dev.warden.api.users.audit.AccountAudit;
import dev.warden.authorizer.domain.UserId;
import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * Grants (refresh-token families), their refresh tokens and revoked access tokens: tables {@code oauth_grants},
 * {@code oauth_refresh_tokens}, {@code oauth_revoked_access_tokens}. Tokens are looked up by SHA-256 only. Each
 * revocation made here moves {@link CredentialRevocations} once it has committed (a revocation inside a grant's own
 * transaction: by {@link #committed}).
 */
public final class GrantRepository {
    /** One authorization of a client by a user. */
    public record Grant(
            String id,
            String clientId,
            String userId,
            Optional<String> sessionId,
            String scope,
            String resource,
            Instant createdAt,
            Instant expiresAt,
            List<String> amr,
            Optional<Instant> authTime) {
        public Grant {
            amr = List.copyOf(amr);
        }
    }

    /** How the user signed in: RFC 8176 values, and when. */
    public record Authentication(List<String> amr, Instant authTime) {}

    /**
     * An access token's standing as read now: {@code good} when its grant is not revoked, its session not ended and
     * the token not revoked; {@code until} is the grant's hard end.
     */
    public record Standing(boolean good, Instant until) {}

    /** A refresh token with its grant and whether the grant can still be used. */
    public record RefreshToken(Grant grant, Instant expiresAt, Optional<Instant> usedAt, boolean grantUsable) {}

    private static final String INSERT_GRANT = """
            INSERT INTO oauth_grants (id, client_id, user_id, session_id, scope, resource, created_at, expires_at,
                amr, auth_time)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""";
    private static final String INSERT_REFRESH = """
            INSERT INTO oauth_refresh_tokens (token_hash, grant_id, created_at, expires_at) VALUES (?, ?, ?, ?)""";
    /** Not ended: not revoked, and its browser session (if any) not signed out. */
    private static final String NOT_ENDED = """
            g.revoked_at IS NULL
             AND NOT EXISTS (SELECT 1 FROM user_sessions s WHERE s.id = g.session_id AND s.revoked_at IS NOT NULL)""";
    /** Usable: not ended, and not past its hard end. */
    static final String USABLE = "(" + NOT_ENDED + " AND g.expires_at > ?)";

    private static final String SELECT_REFRESH = """
            SELECT g.id, g.client_id, g.user_id, g.session_id, g.scope, g.resource, g.created_at,
                g.expires_at AS grant_expires_at, g.amr, g.auth_time, r.expires_at, r.used_at, """ + USABLE + """
             AS usable
            FROM oauth_refresh_tokens r JOIN oauth_grants g ON g.id = r.grant_id WHERE r.token_hash = ?""";
    /**
     * Refresh rotations, each decided as alone (D190, D196): function {@code oauth_rotate_refresh_tokens} (migration
     * V39), whose plan reads every table by primary key however small the tables were when it was planned (D197). Its
     * test of a grant's standing is {@link #NOT_ENDED}'s, written again in the function: a change to one is a change
     * to both (RefreshRotationsIT compares the two).
     */
    private static final String ROTATE_REFRESH = "SELECT * FROM oauth_rotate_refresh_tokens(?, ?, ?, ?, ?, ?, ?, ?)";

    private static final String REVOKE_GRANT = """
            UPDATE oauth_grants SET revoked_at = ?, revoked_reason = ? WHERE id = ? AND revoked_at IS NULL
            RETURNING user_id, client_id""";
    private static final String STANDING = "SELECT g.expires_at, " + NOT_ENDED + """
              AND NOT EXISTS (SELECT 1 FROM oauth_revoked_access_tokens t WHERE t.jti = ?)
            FROM oauth_grants g WHERE g.id = ?""";
    private static final String REVOKE_JTI = """
            INSERT INTO oauth_revoked_access_tokens (jti, expires_at) VALUES (?, ?) ON CONFLICT (jti) DO NOTHING""";
    private static final String GRANT_OF_REFRESH = """
            SELECT g.client_id, g.id FROM oauth_refresh_tokens r JOIN oauth_grants g ON g.id = r.grant_id
            WHERE r.token_hash = ?""";
    private static final String IS_REVOKED_JTI = "SELECT 1 FROM oauth_revoked_access_tokens WHERE jti = ?";
    private static final String PURGE_JTIS = "DELETE FROM oauth_revoked_access_tokens WHERE expires_at < ?";

    private final Database db;
    private final AgentGrantRepository agentGrants;
    private final CredentialRevocations revocations;

    public GrantRepository(Database db, CredentialRevocations revocations) {
        this.db = db;
        this.agentGrants = new AgentGrantRepository(db);
        this.revocations = revocations;
    }

    /** What this repository's revocations move, and what the caches of token states read. */
    public CredentialRevocations revocations() {
        return revocations;
    }

    /** After a grant's transaction committed: when its refusal revoked a family, the revocation is known here. */
    void committed(GrantOutcome outcome) {
        if (outcome instanceof GrantOutcome.Refused refused && refused.revoked()) {
            revocations.happened();
        }
    }

    /** The grants of tokens issued to agents (client credentials, token exchange). */
    public AgentGrantRepository agentGrants() {
        return agentGrants;
    }

    /** Inside {@code conn}'s transaction. */
    void insertGrant(Connection conn, Grant grant) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(INSERT_GRANT)) {
            ps.setString(1, grant.id());
            ps.setString(2, grant.clientId());
            ps.setString(3, grant.userId());
            Sql.setString(ps, 4, grant.sessionId());
            ps.setString(5, grant.scope());
            ps.setString(6, grant.resource());
            ps.setTimestamp(7, Timestamp.from(grant.createdAt()));
            ps.setTimestamp(8, Timestamp.from(grant.expiresAt()));
            ps.setArray(
                    9,
                    grant.amr().isEmpty()
                            ? null
                            : conn.createArrayOf("text", grant.amr().toArray()));
            ps.setTimestamp(10, grant.authTime().map(Timestamp::from).orElse(null));
            ps.executeUpdate();
        }
    }

    /** How the browser session {@code sessionId} signed in, when it exists. */
    Optional<Authentication> sessionAuthentication(Connection conn, String sessionId) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("SELECT amr, created_at FROM user_sessions WHERE id = ?")) {
            ps.setString(1, sessionId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next()
                        ? Optional.of(new Authentication(
                                List.of((String[]) rs.getArray(1).getArray()),
                                rs.getTimestamp(2).toInstant()))
                        : Optional.empty();
            }
        }
    }

    void insertRefreshToken(Connection conn, byte[] hash, String grantId, Instant now, Instant expiresAt)
            throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(INSERT_REFRESH)) {
            ps.setBytes(1, hash);
            ps.setString(2, grantId);
            ps.setTimestamp(3, Timestamp.from(now));
            ps.setTimestamp(4, Timestamp.from(expiresAt));
            ps.executeUpdate();
        }
    }

    /**
     * What a client presenting a refresh token asks: the token ({@code hash}), the client, the {@code resource} and
     * narrower {@code scopes} it names if any, and the successor to store ({@code nextHash}, ending at
     * {@code nextExpiresAt} or its grant's end, whichever is first).
     */
    record Rotation(
            byte[] hash,
            String clientId,
            Optional<String> resource,
            Optional<List<String>> scopes,
            byte[] nextHash,
            Instant nextExpiresAt,
            Instant now) {}

    /** The presented token as it was read, and whether it was spent and its successor stored. */
    record Rotated(RefreshToken token, boolean rotated) {}

    /**
     * Spends the presented token and stores its successor, in one statement, when the token is the client's,
     * unused, unexpired, its grant usable, and the resource and scopes are the grant's; empty for an unknown token.
     * Otherwise nothing is written, and the token as read says why.
     */
    Optional<Rotated> rotateRefreshToken(Rotation rotation) {
        return rotateRefreshTokens(List.of(rotation)).getFirst();
    }

    /**
     * {@link #rotateRefreshToken} for each of {@code rotations}, in one statement: the answers in the same order.
     * A token presented twice in the list rotates for one of them; the other reads as a concurrent use.
     */
    List<Optional<Rotated>> rotateRefreshTokens(List<Rotation> rotations) {
        return db.withConnection(conn -> rotateRefreshTokens(conn, rotations));
    }

    /** {@link #rotateRefreshTokens(List)} on {@code conn}, inside whatever transaction it holds. */
    static List<Optional<Rotated>> rotateRefreshTokens(Connection conn, List<Rotation> rotations) throws SQLException {
        int n = rotations.size();
        Integer[] index = new Integer[n];
        byte[][] hashes = new byte[n][];
        String[] clients = new String[n];
        String[] resources = new String[n];
        String[] scopes = new String[n];
        byte[][] nextHashes = new byte[n][];
        Timestamp[] nextEnds = new Timestamp[n];
        Timestamp[] nows = new Timestamp[n];
        for (int i = 0; i < n; i++) {
            Rotation rotation = rotations.get(i);
            index[i] = i;
            hashes[i] = rotation.hash();
            clients[i] = rotation.clientId();
            resources[i] = rotation.resource().orElse(null);
            scopes[i] = rotation.scopes().map(asked -> String.join(" ", asked)).orElse(null);
            nextHashes[i] = rotation.nextHash();
            nextEnds[i] = Timestamp.from(rotation.nextExpiresAt());
            nows[i] = Timestamp.from(rotation.now());
        }
        try (PreparedStatement ps = conn.prepareStatement(ROTATE_REFRESH)) {
            ps.setArray(1, conn.createArrayOf("int4", index));
            ps.setArray(2, conn.createArrayOf("bytea", hashes));
            ps.setArray(3, conn.createArrayOf("text", clients));
            ps.setArray(4, conn.createArrayOf("text", resources));
            ps.setArray(5, conn.createArrayOf("text", scopes));
            ps.setArray(6, conn.createArrayOf("bytea", nextHashes));
            ps.setArray(7, conn.createArrayOf("timestamptz", nextEnds));
            ps.setArray(8, conn.createArrayOf("timestamptz", nows));
            List<Optional<Rotated>> answers = new ArrayList<>(Collections.nCopies(n, Optional.empty()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    answers.set(rs.getInt("i"), Optional.of(new Rotated(refreshToken(rs), rs.getBoolean("rotated"))));
                }
            }
            return answers;
        }
    }

    private static Optional<RefreshToken> refreshToken(Connection conn, byte[] hash, Instant now) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(SELECT_REFRESH)) {
            ps.setTimestamp(1, Timestamp.from(now));
            ps.setBytes(2, hash);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(refreshToken(rs)) : Optional.empty();
            }
        }
    }

    private static RefreshToken refreshToken(ResultSet rs) throws SQLException {
        Grant grant = new Grant(
                rs.getString("id"),
                rs.getString("client_id"),
                rs.getString("user_id"),
                Sql.string(rs, "session_id"),
                rs.getString("scope"),
                rs.getString("resource"),
                Sql.requiredInstant(rs, "created_at"),
                Sql.requiredInstant(rs, "grant_expires_at"),
                rs.getArray("amr") == null
                        ? List.of()
                        : List.of((String[]) rs.getArray("amr").getArray()),
                Sql.instant(rs, "auth_time"));
        return new RefreshToken(
                grant, Sql.requiredInstant(rs, "expires_at"), Sql.instant(rs, "used_at"), rs.getBoolean("usable"));
    }

    /** Revokes grant {@code grantId} and with it every token of its family. */
    public void revokeGrant(String grantId, String reason, Instant now) {
        db.inTransaction(conn -> {
            revokeGrant(conn, grantId, reason, now);
            return null;
        });
        revocations.happened();
    }

    void revokeGrant(Connection conn, String grantId, String reason, Instant now) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(REVOKE_GRANT)) {
            ps.setTimestamp(1, Timestamp.from(now));
            ps.setString(2, reason);
            ps.setString(3, grantId);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    EventOutbox.appendAudit(
                            conn,
                            AccountAudit.entry(
                                    "oauth-grant.revoked",
                                    UserId.of(rs.getString(1)),
                                    "oauth-client",
                                    rs.getString(2),
                                    java.util.Map.of("grant", grantId, "reason", reason),
                                    now));
                }
            }
        }
    }

    /** The standing of access token {@code jti} of a person's grant {@code grantId}; empty when no such grant. */
    public Optional<Standing> standing(String grantId, String jti) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(STANDING)) {
                ps.setString(1, jti);
                ps.setString(2, grantId);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next()
                            ? Optional.of(new Standing(
                                    rs.getBoolean(2), rs.getTimestamp(1).toInstant()))
                            : Optional.empty();
                }
            }
        });
    }

    /** True when the access token {@code jti} was revoked (RFC 7009) and would not have expired yet. */
    public boolean isAccessTokenRevoked(String jti) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(IS_REVOKED_JTI)) {
                ps.setString(1, jti);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next();
                }
            }
        });
    }

    /** Revokes the access token {@code jti} until it would have expired anyway. */
    public void revokeAccessToken(String jti, Instant expiresAt, Instant now) {
        db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(REVOKE_JTI)) {
                ps.setString(1, jti);
                ps.setTimestamp(2, Timestamp.from(expiresAt));
                ps.executeUpdate();
            }
            try (PreparedStatement ps = conn.prepareStatement(PURGE_JTIS)) {
                ps.setTimestamp(1, Timestamp.from(now));
                ps.executeUpdate();
            }
            return null;
        });
        revocations.happened();
    }

    /** {@code [clientId, grantId]} of the refresh token with hash {@code hash}, if it exists. */
    public Optional<String[]> grantOfRefreshToken(byte[] hash) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(GRANT_OF_REFRESH)) {
                ps.setBytes(1, hash);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(new String[] {rs.getString(1), rs.getString(2)}) : Optional.empty();
                }
            }
        });
    }

    /** Ends every live grant of {@code user} (a password reset): their access and refresh tokens stop working. */
    public int revokeAllOf(UserId user, String reason, Instant now) {
        int ended = db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("UPDATE oauth_grants SET revoked_at = ?, "
                    + "revoked_reason = ? WHERE user_id = ? AND revoked_at IS NULL")) {
                ps.setTimestamp(1, Timestamp.from(now));
                ps.setString(2, reason);
                ps.setString(3, user.value());
                return ps.executeUpdate();
            }
        });
        revocations.happened();
        return ended;
    }

    /**
     * Ends every live grant to client {@code clientId} (an agent's client, whose agent was revoked): the tokens a
     * person granted it through the backchannel stop working.
     */
    public int revokeAllOfClient(String clientId, String reason, Instant now) {
        int ended = db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("UPDATE oauth_grants SET revoked_at = ?, "
                    + "revoked_reason = ? WHERE client_id = ? AND revoked_at IS NULL")) {
                ps.setTimestamp(1, Timestamp.from(now));
                ps.setString(2, reason);
                ps.setString(3, clientId);
                return ps.executeUpdate();
            }
        });
        revocations.happened();
        return ended;
    }

    /** The refresh token with hash {@code hash} as it stands (a read: introspection locks nothing). */
    public Optional<RefreshToken> findRefreshToken(byte[] hash, Instant now) {
        return db.withConnection(conn -> refreshToken(conn, hash, now));
    }
}
