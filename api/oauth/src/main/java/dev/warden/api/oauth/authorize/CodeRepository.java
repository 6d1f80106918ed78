package dev.warden.api.oauth.authorize;

import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Optional;

/** Authorization codes, table {@code oauth_codes}, looked up by SHA-256. */
public final class CodeRepository {
    /** A code as issued, and whether (and into which grant) it was redeemed. */
    public record Code(
            String clientId,
            String userId,
            Optional<String> sessionId,
            String redirectUri,
            String codeChallenge,
            String scope,
            String resource,
            Instant expiresAt,
            Optional<Instant> redeemedAt,
            Optional<String> grantId) {}

    private static final String INSERT = """
            INSERT INTO oauth_codes (code_hash, client_id, user_id, session_id, redirect_uri, code_challenge, scope,
                resource, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""";
    private static final String LOCK = """
            SELECT client_id, user_id, session_id, redirect_uri, code_challenge, scope, resource, expires_at,
                redeemed_at, grant_id FROM oauth_codes WHERE code_hash = ? FOR UPDATE""";
    private static final String REDEEM = """
            UPDATE oauth_codes SET redeemed_at = ?, grant_id = ? WHERE code_hash = ?""";
    private static final String PURGE = "DELETE FROM oauth_codes WHERE expires_at < ? AND redeemed_at IS NULL";

    private final Database db;

    public CodeRepository(Database db) {
        this.db = db;
    }

    /** Stores a new code (and drops codes that expired unredeemed). */
    void insert(byte[] hash, Code code, Instant now) {
        db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(INSERT)) {
                ps.setBytes(1, hash);
                ps.setString(2, code.clientId());
                ps.setString(3, code.userId());
                Sql.setString(ps, 4, code.sessionId());
                ps.setString(5, code.redirectUri());
                ps.setString(6, code.codeChallenge());
                ps.setString(7, code.scope());
                ps.setString(8, code.resource());
                ps.setTimestamp(9, Timestamp.from(now));
                ps.setTimestamp(10, Timestamp.from(code.expiresAt()));
                ps.executeUpdate();
            }
            try (PreparedStatement ps = conn.prepareStatement(PURGE)) {
                ps.setTimestamp(1, Timestamp.from(now.minusSeconds(3600)));
                ps.executeUpdate();
            }
            return null;
        });
    }

    /** The code with hash {@code hash}, locked for {@code conn}'s transaction. */
    public Optional<Code> lock(Connection conn, byte[] hash) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(LOCK)) {
            ps.setBytes(1, hash);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new Code(
                        rs.getString("client_id"),
                        rs.getString("user_id"),
                        Sql.string(rs, "session_id"),
                        rs.getString("redirect_uri"),
                        rs.getString("code_challenge"),
                        rs.getString("scope"),
                        rs.getString("resource"),
                        Sql.requiredInstant(rs, "expires_at"),
                        Sql.instant(rs, "redeemed_at"),
                        Sql.string(rs, "grant_id")));
            }
        }
    }

    /** Marks the code redeemed (into {@code grantId}, empty when it was burnt by a failed attempt). */
    public void redeem(Connection conn, byte[] hash, Optional<String> grantId, Instant now) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(REDEEM)) {
            ps.setTimestamp(1, Timestamp.from(now));
            Sql.setString(ps, 2, grantId);
            ps.setBytes(3, hash);
            ps.executeUpdate();
        }
    }
}
