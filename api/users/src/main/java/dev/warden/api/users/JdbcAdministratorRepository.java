package dev.warden.api.users;

import dev.warden.api.events.EventOutbox;
import dev.warden.authorizer.domain.UserId;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.DatabaseException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** {@link AdministratorRepository} on {@code users.administrator}, {@code setup_tokens} and {@code admin_sessions}. */
public final class JdbcAdministratorRepository implements AdministratorRepository {
    private static final String LIVE_UNCLAIMED =
            "token_hash = ? AND claimed_by IS NULL AND used_at IS NULL AND expires_at > ?";

    private final Database db;

    public JdbcAdministratorRepository(Database db) {
        this.db = db;
    }

    @Override
    public boolean anyAdministrator() {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("SELECT 1 FROM users WHERE administrator LIMIT 1");
                    ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        });
    }

    @Override
    public boolean issueSetupToken(byte[] tokenHash, Instant now, Instant expiresAt) {
        return db.inTransaction(conn -> {
            // One issuer at a time: instances starting together each replace the previous token.
            try (PreparedStatement ps = conn.prepareStatement("LOCK TABLE setup_tokens IN EXCLUSIVE MODE")) {
                ps.execute();
            }
            try (PreparedStatement ps = conn.prepareStatement("SELECT 1 FROM setup_tokens "
                    + "WHERE claimed_by IS NOT NULL AND used_at IS NULL AND expires_at > ?")) {
                ps.setTimestamp(1, Timestamp.from(now));
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        return false;
                    }
                }
            }
            try (PreparedStatement ps = conn.prepareStatement("DELETE FROM setup_tokens WHERE used_at IS NULL")) {
                ps.executeUpdate();
            }
            try (PreparedStatement ps = conn.prepareStatement(
                    "INSERT INTO setup_tokens (token_hash, created_at, expires_at) VALUES (?, ?, ?)")) {
                ps.setBytes(1, tokenHash);
                ps.setTimestamp(2, Timestamp.from(now));
                ps.setTimestamp(3, Timestamp.from(expiresAt));
                ps.executeUpdate();
            }
            return true;
        });
    }

    @Override
    public boolean createClaiming(
            UserRepository.NewUser user,
            Session session,
            byte[] sessionTokenHash,
            Origin origin,
            List<StreamEvent.Draft> events,
            byte[] setupTokenHash,
            Instant now) {
        try {
            return db.inTransaction(conn -> {
                try (PreparedStatement ps =
                        conn.prepareStatement("SELECT 1 FROM setup_tokens WHERE " + LIVE_UNCLAIMED + " FOR UPDATE")) {
                    ps.setBytes(1, setupTokenHash);
                    ps.setTimestamp(2, Timestamp.from(now));
                    try (ResultSet rs = ps.executeQuery()) {
                        if (!rs.next()) {
                            return false;
                        }
                    }
                }
                JdbcUserRepository.insert(conn, user, session, sessionTokenHash, origin, events);
                try (PreparedStatement ps =
                        conn.prepareStatement("UPDATE setup_tokens SET claimed_by = ? WHERE " + LIVE_UNCLAIMED)) {
                    ps.setString(1, user.user().id().value());
                    ps.setBytes(2, setupTokenHash);
                    ps.setTimestamp(3, Timestamp.from(now));
                    ps.executeUpdate();
                }
                return true;
            });
        } catch (DatabaseException e) {
            throw JdbcUserRepository.taken(e).orElseThrow(() -> e);
        }
    }

    @Override
    public boolean completeSetup(UserId user, byte[] setupTokenHash, Instant now, AuditEntry audit) {
        return db.inTransaction(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("UPDATE setup_tokens SET used_at = ? "
                    + "WHERE token_hash = ? AND claimed_by = ? AND used_at IS NULL AND expires_at > ?")) {
                ps.setTimestamp(1, Timestamp.from(now));
                ps.setBytes(2, setupTokenHash);
                ps.setString(3, user.value());
                ps.setTimestamp(4, Timestamp.from(now));
                if (ps.executeUpdate() != 1) {
                    return false;
                }
            }
            try (PreparedStatement ps =
                    conn.prepareStatement("UPDATE users SET administrator = true, updated_at = ? WHERE id = ?")) {
                ps.setTimestamp(1, Timestamp.from(now));
                ps.setString(2, user.value());
                ps.executeUpdate();
            }
            EventOutbox.appendAudit(conn, audit);
            return true;
        });
    }

    @Override
    public boolean isAdministrator(UserId user) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("SELECT administrator FROM users WHERE id = ?")) {
                ps.setString(1, user.value());
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() && rs.getBoolean(1);
                }
            }
        });
    }

    @Override
    public void startAdminSession(
            String id,
            byte[] tokenHash,
            UserId user,
            String sessionId,
            Instant now,
            Instant expiresAt,
            AuditEntry audit) {
        db.inTransaction(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO admin_sessions "
                    + "(id, token_hash, user_id, session_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)")) {
                ps.setString(1, id);
                ps.setBytes(2, tokenHash);
                ps.setString(3, user.value());
                ps.setString(4, sessionId);
                ps.setTimestamp(5, Timestamp.from(now));
                ps.setTimestamp(6, Timestamp.from(expiresAt));
                ps.executeUpdate();
            }
            EventOutbox.appendAudit(conn, audit);
            return null;
        });
    }

    @Override
    public Optional<UserId> findAdminSession(byte[] tokenHash, Instant now) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("SELECT a.user_id FROM admin_sessions a "
                    + "JOIN users u ON u.id = a.user_id AND u.administrator "
                    + "JOIN user_sessions s ON s.id = a.session_id AND s.revoked_at IS NULL "
                    + "WHERE a.token_hash = ? AND a.revoked_at IS NULL AND a.expires_at > ?")) {
                ps.setBytes(1, tokenHash);
                ps.setTimestamp(2, Timestamp.from(now));
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(UserId.of(rs.getString(1))) : Optional.empty();
                }
            }
        });
    }

    @Override
    public void endAdminSession(
            byte[] tokenHash, Instant now, java.util.function.BiFunction<String, UserId, AuditEntry> audit) {
        db.inTransaction(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("UPDATE admin_sessions SET revoked_at = ? "
                    + "WHERE token_hash = ? AND revoked_at IS NULL AND expires_at > ? RETURNING id, user_id")) {
                ps.setTimestamp(1, Timestamp.from(now));
                ps.setBytes(2, tokenHash);
                ps.setTimestamp(3, Timestamp.from(now));
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        EventOutbox.appendAudit(conn, audit.apply(rs.getString(1), UserId.of(rs.getString(2))));
                    }
                }
            }
            return null;
        });
    }
}
