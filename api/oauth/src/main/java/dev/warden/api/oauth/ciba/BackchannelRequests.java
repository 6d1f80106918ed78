package dev.warden.api.oauth.ciba;

import dev.warden.api.auth.TokenKind;
import dev.warden.api.auth.Tokens;
import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Backchannel authentication requests (OpenID CIBA Core 1.0, poll mode; table {@code oauth_ciba_requests}): the
 * {@code auth_req_id} is stored as SHA-256 only, with the client, the person asked, what it asks for and the approval
 * that carries the decision. A request is {@code pending} until its client redeems the approval for tokens.
 */
public final class BackchannelRequests {
    /** A request as the token endpoint sees it. */
    public record BackchannelRequest(
            byte[] authRequestIdHash,
            String clientId,
            String userId,
            String approvalId,
            String scope,
            String resource,
            Duration interval,
            Instant expiresAt,
            Optional<Instant> lastPolledAt,
            String status) {
        /** The key the approval is made for: the hash, in hex. */
        public String key() {
            return keyOf(authRequestIdHash);
        }
    }

    private static final String INSERT = """
            INSERT INTO oauth_ciba_requests (auth_req_id_hash, client_id, user_id, approval_id, scope, resource,
                interval_seconds, created_at, expires_at, status)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending')""";
    private static final String LOCK = """
            SELECT auth_req_id_hash, client_id, user_id, approval_id, scope, resource, interval_seconds, expires_at,
                last_polled_at, status
            FROM oauth_ciba_requests WHERE auth_req_id_hash = ? FOR UPDATE""";
    private static final String POLLED =
            "UPDATE oauth_ciba_requests SET last_polled_at = ?, interval_seconds = ? WHERE auth_req_id_hash = ?";
    private static final String REDEEM =
            "UPDATE oauth_ciba_requests SET status = 'redeemed', grant_id = ? WHERE auth_req_id_hash = ?";
    private static final String PURGE = "DELETE FROM oauth_ciba_requests WHERE expires_at < ? AND grant_id IS NULL";

    private final Database db;

    public BackchannelRequests(Database db) {
        this.db = db;
    }

    /** A new {@code auth_req_id} and the key its approval is made for. */
    public record Minted(String authRequestId, byte[] hash) {
        public String key() {
            return keyOf(hash);
        }
    }

    public static Minted mint() {
        String id = Tokens.mint(TokenKind.BACKCHANNEL_REQUEST);
        return new Minted(id, Tokens.hash("ciba:" + id));
    }

    /** The hash an {@code auth_req_id} is stored under. */
    public static byte[] hashOf(String authRequestId) {
        return Tokens.hash("ciba:" + authRequestId);
    }

    static String keyOf(byte[] hash) {
        return "ciba:" + HexFormat.of().formatHex(hash);
    }

    /** Whether {@code userId} is a person who signs in (an agent's owner may be any id the administrator gave). */
    public boolean isPerson(String userId) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("SELECT 1 FROM users WHERE id = ?")) {
                ps.setString(1, userId);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next();
                }
            }
        });
    }

    /** Records a request; expired unredeemed ones older than a day go. */
    public void create(
            Minted minted,
            String clientId,
            String userId,
            String approvalId,
            String scope,
            String resource,
            Duration interval,
            Instant expiresAt,
            Instant now) {
        db.withConnection(conn -> {
            try (PreparedStatement purge = conn.prepareStatement(PURGE)) {
                purge.setTimestamp(1, Timestamp.from(now.minus(Duration.ofDays(1))));
                purge.executeUpdate();
            }
            try (PreparedStatement ps = conn.prepareStatement(INSERT)) {
                ps.setBytes(1, minted.hash());
                ps.setString(2, clientId);
                ps.setString(3, userId);
                ps.setString(4, approvalId);
                ps.setString(5, scope);
                ps.setString(6, resource);
                ps.setInt(7, (int) interval.toSeconds());
                ps.setTimestamp(8, Timestamp.from(now));
                ps.setTimestamp(9, Timestamp.from(expiresAt));
                ps.executeUpdate();
            }
            return null;
        });
    }

    /** The request of {@code hash}, locked for this transaction. */
    public Optional<BackchannelRequest> lock(Connection conn, byte[] hash) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(LOCK)) {
            ps.setBytes(1, hash);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new BackchannelRequest(
                        rs.getBytes("auth_req_id_hash"),
                        rs.getString("client_id"),
                        rs.getString("user_id"),
                        rs.getString("approval_id"),
                        rs.getString("scope"),
                        rs.getString("resource"),
                        Duration.ofSeconds(rs.getInt("interval_seconds")),
                        Sql.requiredInstant(rs, "expires_at"),
                        Sql.instant(rs, "last_polled_at"),
                        rs.getString("status")));
            }
        }
    }

    /** Records a poll at {@code now}, with the interval the client must keep from now on. */
    public void polled(Connection conn, byte[] hash, Instant now, Duration interval) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(POLLED)) {
            ps.setTimestamp(1, Timestamp.from(now));
            ps.setInt(2, (int) interval.toSeconds());
            ps.setBytes(3, hash);
            ps.executeUpdate();
        }
    }

    /** Marks the request redeemed by grant {@code grantId}. */
    public void redeem(Connection conn, byte[] hash, String grantId) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(REDEEM)) {
            ps.setString(1, grantId);
            ps.setBytes(2, hash);
            ps.executeUpdate();
        }
    }
}
