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
import java.sql.Types;
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
     * A refresh in one statement (D190): read the token and its grant ({@code t}); spend it only when every check
     * the client is told of passes and it is unused ({@code spent}: a concurrent use that spent it first leaves it
     * alone, PostgreSQL re-checking {@code used_at} on the row it waited for); store its successor only when it was
     * spent ({@code stored}). The answer is the token as read, and whether it rotated.
     */
    private static final String ROTATE_REFRESH = """
            WITH asked AS (SELECT CAST(? AS text) AS resource, CAST(? AS text[]) AS scopes), t AS (""" + SELECT_REFRESH + """
            ), spent AS (
                UPDATE oauth_refresh_tokens r SET used_at = ? FROM t, asked
                WHERE r.token_hash = ? AND r.used_at IS NULL AND t.client_id = ? AND t.usable AND t.expires_at > ?
                  AND (asked.resource IS NULL OR t.resource = asked.resource)
                  AND (asked.scopes IS NULL
                       OR (cardinality(asked.scopes) > 0 AND string_to_array(t.scope, ' ') @> asked.scopes))
                RETURNING t.id, t.grant_expires_at
            ), stored AS (
                INSERT INTO oauth_refresh_tokens (token_hash, grant_id, created_at, expires_at)
                SELECT ?, spent.id, ?, LEAST(CAST(? AS timestamptz), spent.grant_expires_at) FROM spent
                RETURNING 1
            )
            SELECT t.*, EXISTS (SELECT 1 FROM stored) AS rotated FROM t""";

    /**
     * {@link #ROTATE_REFRESH} for many presented tokens at once ({@code req}, one row each, numbered {@code i}), for
     * {@link RefreshRotations}: each row is read, spent and succeeded exactly as alone. A token presented by two rows
     * is spent once (PostgreSQL updates a row once, whichever row of the join it takes), and the other row reads it
     * unused and unspent: a concurrent use, as between two statements. Asked scopes come space-joined ({@code NULL}:
     * none asked; {@code ''}: an empty list).
     */
    private static final String ROTATE_REFRESH_BATCH = """
            WITH req AS (
                SELECT * FROM unnest(CAST(? AS int[]), CAST(? AS bytea[]), CAST(? AS text[]), CAST(? AS text[]),
                    CAST(? AS text[]), CAST(? AS bytea[]), CAST(? AS timestamptz[]), CAST(? AS timestamptz[]))
                    AS req(i, token_hash, client_id, resource, scopes, next_hash, next_expires_at, now_at)
            ), t AS (
                SELECT req.i, g.id, g.client_id, g.user_id, g.session_id, g.scope, g.resource, g.created_at,
                    g.expires_at AS grant_expires_at, g.amr, g.auth_time, r.expires_at, r.used_at,
                    (""" + NOT_ENDED + """
             AND g.expires_at > req.now_at) AS usable
                FROM req JOIN oauth_refresh_tokens r ON r.token_hash = req.token_hash
                    JOIN oauth_grants g ON g.id = r.grant_id
            ), spent AS (
                UPDATE oauth_refresh_tokens r SET used_at = req.now_at FROM t JOIN req ON req.i = t.i
                WHERE r.token_hash = req.token_hash AND r.used_at IS NULL AND t.client_id = req.client_id AND t.usable
                  AND t.expires_at > req.now_at
                  AND (req.resource IS NULL OR t.resource = req.resource)
                  AND (req.scopes IS NULL
                       OR (cardinality(string_to_array(req.scopes, ' ')) > 0
                           AND string_to_array(t.scope, ' ') @> string_to_array(req.scopes, ' ')))
                RETURNING req.i, t.id, t.grant_expires_at
            ), stored AS (
                INSERT INTO oauth_refresh_tokens (token_hash, grant_id, created_at, expires_at)
                SELECT req.next_hash, spent.id, req.now_at, LEAST(req.next_expires_at, spent.grant_expires_at)
                FROM spent JOIN req ON req.i = spent.i
                RETURNING 1
            )
            SELECT t.*, EXISTS (SELECT 1 FROM spent WHERE spent.i = t.i) AS rotated FROM t""";

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
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(ROTATE_REFRESH)) {
                Timestamp now = Timestamp.from(rotation.now());
                ps.setString(1, rotation.resource().orElse(null));
                if (rotation.scopes().isPresent()) {
                    ps.setArray(
                            2,
                            conn.createArrayOf("text", rotation.scopes().get().toArray()));
                } else {
                    ps.setNull(2, Types.ARRAY);
                }
                ps.setTimestamp(3, now);
                ps.setBytes(4, rotation.hash());
                ps.setTimestamp(5, now);
                ps.setBytes(6, rotation.hash());
                ps.setString(7, rotation.clientId());
                ps.setTimestamp(8, now);
                ps.setBytes(9, rotation.nextHash());
                ps.setTimestamp(10, now);
                ps.setTimestamp(11, Timestamp.from(rotation.nextExpiresAt()));
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next()
                            ? Optional.of(new Rotated(refreshToken(rs), rs.getBoolean("rotated")))
                            : Optional.empty();
                }
            }
        });
    }

    /**
     * {@link #rotateRefreshToken} for each of {@code rotations}, in one statement: the answers in the same order.
     * A token presented twice in the list rotates for one of them; the other reads as a concurrent use.
     */
    List<Optional<Rotated>> rotateRefreshTokens(List<Rotation> rotations) {
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
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(ROTATE_REFRESH_BATCH)) {
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
                        answers.set(
                                rs.getInt("i"), Optional.of(new Rotated(refreshToken(rs), rs.getBoolean("rotated"))));
                    }
                }
                return answers;
            }
        });
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
