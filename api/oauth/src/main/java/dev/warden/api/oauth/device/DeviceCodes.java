package dev.warden.api.oauth.device;

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
import java.util.Optional;

/**
 * Device authorization requests (RFC 8628, table {@code oauth_device_codes}): the device code and the user code
 * are stored as SHA-256 only. A request is {@code pending} until its user approves or denies it on the
 * verification page, then {@code redeemed} once the device has its tokens.
 */
public final class DeviceCodes {
    /** A request as the verification page and the token endpoint see it. */
    public record DeviceRequest(
            byte[] deviceCodeHash,
            String clientId,
            String scope,
            String resource,
            Duration interval,
            Instant createdAt,
            Instant expiresAt,
            Optional<Instant> lastPolledAt,
            String status,
            Optional<String> userId,
            Optional<String> sessionId) {}

    /** A request just made: what the device shows and keeps. */
    public record Issued(String deviceCode, String userCode, Instant expiresAt, Duration interval) {}

    private static final String INSERT = """
            INSERT INTO oauth_device_codes (device_code_hash, user_code_hash, client_id, scope, resource,
                interval_seconds, created_at, expires_at, status)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending') ON CONFLICT DO NOTHING""";
    private static final String COLUMNS = """
            device_code_hash, client_id, scope, resource, interval_seconds, created_at, expires_at, last_polled_at,
            status, user_id, session_id""";
    private static final String PENDING_BY_USER_CODE = "SELECT " + COLUMNS
            + " FROM oauth_device_codes WHERE user_code_hash = ? AND status = 'pending' AND expires_at > ?";
    private static final String DECIDE = """
            UPDATE oauth_device_codes SET status = ?, user_id = ?, session_id = ?, decided_at = ?
            WHERE user_code_hash = ? AND status = 'pending' AND expires_at > ?""";
    private static final String LOCK =
            "SELECT " + COLUMNS + " FROM oauth_device_codes WHERE device_code_hash = ? " + "FOR UPDATE";
    private static final String POLLED = """
            UPDATE oauth_device_codes SET last_polled_at = ?, interval_seconds = ? WHERE device_code_hash = ?""";
    private static final String REDEEM = """
            UPDATE oauth_device_codes SET status = 'redeemed', grant_id = ? WHERE device_code_hash = ?""";
    private static final String PURGE = "DELETE FROM oauth_device_codes WHERE expires_at < ? AND grant_id IS NULL";
    private static final int ATTEMPTS = 5;

    private final Database db;

    public DeviceCodes(Database db) {
        this.db = db;
    }

    /** Starts a request; a user code already pending is never reused. */
    public Issued create(String clientId, String scope, String resource, Duration ttl, Duration interval, Instant now) {
        return db.withConnection(conn -> {
            try (PreparedStatement purge = conn.prepareStatement(PURGE)) {
                purge.setTimestamp(1, Timestamp.from(now.minus(Duration.ofDays(1))));
                purge.executeUpdate();
            }
            for (int i = 0; i < ATTEMPTS; i++) {
                String deviceCode = Tokens.mint(TokenKind.DEVICE_CODE);
                String userCode = UserCodes.mint();
                try (PreparedStatement ps = conn.prepareStatement(INSERT)) {
                    ps.setBytes(1, Tokens.hash(deviceCode));
                    ps.setBytes(2, userCodeHash(UserCodes.normalize(userCode).orElseThrow()));
                    ps.setString(3, clientId);
                    ps.setString(4, scope);
                    ps.setString(5, resource);
                    ps.setInt(6, (int) interval.toSeconds());
                    ps.setTimestamp(7, Timestamp.from(now));
                    ps.setTimestamp(8, Timestamp.from(now.plus(ttl)));
                    if (ps.executeUpdate() == 1) {
                        return new Issued(deviceCode, userCode, now.plus(ttl), interval);
                    }
                }
            }
            throw new IllegalStateException("no free user code after " + ATTEMPTS + " attempts");
        });
    }

    /** The pending, unexpired request of user code {@code canonical} ({@link UserCodes#normalize}). */
    public Optional<DeviceRequest> findPending(String canonical, Instant now) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(PENDING_BY_USER_CODE)) {
                ps.setBytes(1, userCodeHash(canonical));
                ps.setTimestamp(2, Timestamp.from(now));
                return read(ps);
            }
        });
    }

    /** Records the user's decision; false when the request is no longer pending (decided or expired). */
    public boolean decide(String canonical, boolean approve, String userId, Optional<String> sessionId, Instant now) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(DECIDE)) {
                ps.setString(1, approve ? "approved" : "denied");
                ps.setString(2, userId);
                Sql.setString(ps, 3, sessionId);
                ps.setTimestamp(4, Timestamp.from(now));
                ps.setBytes(5, userCodeHash(canonical));
                ps.setTimestamp(6, Timestamp.from(now));
                return ps.executeUpdate() == 1;
            }
        });
    }

    /** The request of device code hash {@code hash}, locked for this transaction. */
    public Optional<DeviceRequest> lock(Connection conn, byte[] hash) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(LOCK)) {
            ps.setBytes(1, hash);
            return read(ps);
        }
    }

    /** Records a poll at {@code now}, with the interval the device must keep from now on. */
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

    private static Optional<DeviceRequest> read(PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                return Optional.empty();
            }
            return Optional.of(new DeviceRequest(
                    rs.getBytes("device_code_hash"),
                    rs.getString("client_id"),
                    rs.getString("scope"),
                    rs.getString("resource"),
                    Duration.ofSeconds(rs.getInt("interval_seconds")),
                    Sql.requiredInstant(rs, "created_at"),
                    Sql.requiredInstant(rs, "expires_at"),
                    Sql.instant(rs, "last_polled_at"),
                    rs.getString("status"),
                    Sql.string(rs, "user_id"),
                    Sql.string(rs, "session_id")));
        }
    }

    private static byte[] userCodeHash(String canonical) {
        return Tokens.hash("user-code:" + canonical);
    }
}
