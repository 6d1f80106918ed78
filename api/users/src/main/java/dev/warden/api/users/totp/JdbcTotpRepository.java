package dev.warden.api.users.totp;

import dev.warden.api.events.EventOutbox;
import dev.warden.authorizer.domain.UserId;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.Sql;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** {@link TotpRepository} on {@code user_totp}, {@code user_recovery_codes} and {@code sign_in_challenges}. */
public final class JdbcTotpRepository implements TotpRepository {
    private final Database db;

    public JdbcTotpRepository(Database db) {
        this.db = db;
    }

    @Override
    public Optional<Enrolment> find(UserId user) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps =
                    conn.prepareStatement("SELECT secret, confirmed_at, last_step FROM user_totp WHERE user_id = ?")) {
                ps.setString(1, user.value());
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next()
                            ? Optional.of(new Enrolment(
                                    rs.getString("secret"), Sql.instant(rs, "confirmed_at"), rs.getLong("last_step")))
                            : Optional.empty();
                }
            }
        });
    }

    @Override
    public boolean startEnrolment(UserId user, String storedSecret, Instant now) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO user_totp (user_id, secret, created_at) "
                    + "VALUES (?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET secret = EXCLUDED.secret, "
                    + "created_at = EXCLUDED.created_at, last_step = -1 WHERE user_totp.confirmed_at IS NULL")) {
                ps.setString(1, user.value());
                ps.setString(2, storedSecret);
                ps.setTimestamp(3, Timestamp.from(now));
                return ps.executeUpdate() == 1;
            }
        });
    }

    @Override
    public boolean confirm(UserId user, long step, List<byte[]> recoveryHashes, Instant now, AuditEntry audit) {
        return db.inTransaction(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("UPDATE user_totp SET confirmed_at = ?, last_step = ? "
                    + "WHERE user_id = ? AND confirmed_at IS NULL")) {
                ps.setTimestamp(1, Timestamp.from(now));
                ps.setLong(2, step);
                ps.setString(3, user.value());
                if (ps.executeUpdate() != 1) {
                    return false;
                }
            }
            try (PreparedStatement ps = conn.prepareStatement("DELETE FROM user_recovery_codes WHERE user_id = ?")) {
                ps.setString(1, user.value());
                ps.executeUpdate();
            }
            try (PreparedStatement ps =
                    conn.prepareStatement("INSERT INTO user_recovery_codes (user_id, code_hash) VALUES (?, ?)")) {
                for (byte[] hash : recoveryHashes) {
                    ps.setString(1, user.value());
                    ps.setBytes(2, hash);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            EventOutbox.appendAudit(conn, audit);
            return true;
        });
    }

    @Override
    public boolean accept(UserId user, long step) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("UPDATE user_totp SET last_step = ? "
                    + "WHERE user_id = ? AND confirmed_at IS NOT NULL AND last_step < ?")) {
                ps.setLong(1, step);
                ps.setString(2, user.value());
                ps.setLong(3, step);
                return ps.executeUpdate() == 1;
            }
        });
    }

    @Override
    public boolean useRecoveryCode(UserId user, byte[] hash, Instant now) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("UPDATE user_recovery_codes SET used_at = ? "
                    + "WHERE user_id = ? AND code_hash = ? AND used_at IS NULL")) {
                ps.setTimestamp(1, Timestamp.from(now));
                ps.setString(2, user.value());
                ps.setBytes(3, hash);
                return ps.executeUpdate() == 1;
            }
        });
    }

    @Override
    public int recoveryCodesLeft(UserId user) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(
                    "SELECT count(*) FROM user_recovery_codes WHERE user_id = ? AND used_at IS NULL")) {
                ps.setString(1, user.value());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getInt(1);
                }
            }
        });
    }

    @Override
    public boolean remove(UserId user, AuditEntry audit) {
        return db.inTransaction(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("DELETE FROM user_recovery_codes WHERE user_id = ?")) {
                ps.setString(1, user.value());
                ps.executeUpdate();
            }
            try (PreparedStatement ps = conn.prepareStatement("DELETE FROM user_totp WHERE user_id = ?")) {
                ps.setString(1, user.value());
                if (ps.executeUpdate() != 1) {
                    return false;
                }
            }
            EventOutbox.appendAudit(conn, audit);
            return true;
        });
    }

    @Override
    public void createChallenge(byte[] tokenHash, UserId user, String firstFactor, Instant now, Instant expiresAt) {
        db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO sign_in_challenges "
                    + "(token_hash, user_id, created_at, expires_at, first_factor) VALUES (?, ?, ?, ?, ?)")) {
                ps.setBytes(1, tokenHash);
                ps.setString(2, user.value());
                ps.setTimestamp(3, Timestamp.from(now));
                ps.setTimestamp(4, Timestamp.from(expiresAt));
                ps.setString(5, firstFactor);
                return ps.executeUpdate();
            }
        });
    }

    @Override
    public Optional<OpenChallenge> openChallenge(byte[] tokenHash, Instant now, int maxAttempts) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("SELECT user_id, first_factor FROM sign_in_challenges "
                    + "WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? AND attempts < ?")) {
                ps.setBytes(1, tokenHash);
                ps.setTimestamp(2, Timestamp.from(now));
                ps.setInt(3, maxAttempts);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next()
                            ? Optional.of(new OpenChallenge(UserId.of(rs.getString(1)), rs.getString(2)))
                            : Optional.empty();
                }
            }
        });
    }

    @Override
    public void challengeFailed(byte[] tokenHash) {
        db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(
                    "UPDATE sign_in_challenges SET attempts = attempts + 1 WHERE token_hash = ?")) {
                ps.setBytes(1, tokenHash);
                return ps.executeUpdate();
            }
        });
    }

    @Override
    public boolean useChallenge(byte[] tokenHash, Instant now) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(
                    "UPDATE sign_in_challenges SET used_at = ? WHERE token_hash = ? AND used_at IS NULL")) {
                ps.setTimestamp(1, Timestamp.from(now));
                ps.setBytes(2, tokenHash);
                return ps.executeUpdate() == 1;
            }
        });
    }
}
