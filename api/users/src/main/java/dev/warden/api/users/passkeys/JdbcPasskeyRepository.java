package dev.warden.api.users.passkeys;

import dev.warden.api.events.EventOutbox;
import dev.warden.authorizer.domain.UserId;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.Sql;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** {@link PasskeyRepository} on {@code passkeys} and {@code webauthn_ceremonies}. */
public final class JdbcPasskeyRepository implements PasskeyRepository {
    /** Expired ceremonies older than this are dropped as new ones are made, a bounded batch at a time. */
    private static final Duration KEEP_EXPIRED = Duration.ofHours(1);

    private static final String COLUMNS = "id, user_id, credential_id, attested_credential_data, sign_count, "
            + "uv_initialized, backup_eligible, backed_up, transports, name, created_at, last_used_at";

    private final Database db;

    public JdbcPasskeyRepository(Database db) {
        this.db = db;
    }

    @Override
    public void createCeremony(
            byte[] handleHash, Kind kind, Optional<UserId> user, byte[] challenge, Instant now, Instant expiresAt) {
        db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("DELETE FROM webauthn_ceremonies WHERE handle_hash IN "
                    + "(SELECT handle_hash FROM webauthn_ceremonies WHERE expires_at < ? LIMIT 100)")) {
                ps.setTimestamp(1, Timestamp.from(now.minus(KEEP_EXPIRED)));
                ps.executeUpdate();
            }
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO webauthn_ceremonies "
                    + "(handle_hash, kind, user_id, challenge, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)")) {
                ps.setBytes(1, handleHash);
                ps.setString(2, kind.column());
                Sql.setString(ps, 3, user.map(UserId::value));
                ps.setBytes(4, challenge);
                ps.setTimestamp(5, Timestamp.from(now));
                ps.setTimestamp(6, Timestamp.from(expiresAt));
                return ps.executeUpdate();
            }
        });
    }

    @Override
    public Optional<Ceremony> useCeremony(byte[] handleHash, Kind kind, Instant now) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("UPDATE webauthn_ceremonies SET used_at = ? "
                    + "WHERE handle_hash = ? AND kind = ? AND used_at IS NULL AND expires_at > ? "
                    + "RETURNING user_id, challenge")) {
                ps.setTimestamp(1, Timestamp.from(now));
                ps.setBytes(2, handleHash);
                ps.setString(3, kind.column());
                ps.setTimestamp(4, Timestamp.from(now));
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next()
                            ? Optional.of(
                                    new Ceremony(Sql.string(rs, "user_id").map(UserId::of), rs.getBytes("challenge")))
                            : Optional.empty();
                }
            }
        });
    }

    @Override
    public Added add(Stored passkey, int maxPerUser, AuditEntry audit) {
        return db.inTransaction(conn -> {
            // The owner's row is the lock that keeps two registrations from both passing the count.
            try (PreparedStatement ps = conn.prepareStatement("SELECT 1 FROM users WHERE id = ? FOR UPDATE")) {
                ps.setString(1, passkey.user().value());
                ps.executeQuery().close();
            }
            try (PreparedStatement ps = conn.prepareStatement("SELECT count(*) FROM passkeys WHERE user_id = ?")) {
                ps.setString(1, passkey.user().value());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getInt(1) >= maxPerUser) {
                        return Added.TOO_MANY;
                    }
                }
            }
            Passkey shown = passkey.passkey();
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO passkeys (" + COLUMNS + ") "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL) ON CONFLICT (credential_id) DO NOTHING")) {
                ps.setString(1, shown.id());
                ps.setString(2, passkey.user().value());
                ps.setBytes(3, passkey.credentialId());
                ps.setBytes(4, passkey.attestedCredentialData());
                ps.setLong(5, passkey.signCount());
                ps.setBoolean(6, passkey.uvInitialized());
                ps.setBoolean(7, passkey.backupEligible());
                ps.setBoolean(8, shown.backedUp());
                ps.setArray(9, conn.createArrayOf("text", shown.transports().toArray()));
                ps.setString(10, shown.name());
                ps.setTimestamp(11, Timestamp.from(shown.createdAt()));
                if (ps.executeUpdate() != 1) {
                    return Added.DUPLICATE;
                }
            }
            EventOutbox.appendAudit(conn, audit);
            return Added.ADDED;
        });
    }

    @Override
    public List<Stored> listOf(UserId user) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(
                    "SELECT " + COLUMNS + " FROM passkeys WHERE user_id = ? ORDER BY created_at, id")) {
                ps.setString(1, user.value());
                try (ResultSet rs = ps.executeQuery()) {
                    List<Stored> out = new ArrayList<>();
                    while (rs.next()) {
                        out.add(stored(rs));
                    }
                    return out;
                }
            }
        });
    }

    @Override
    public Optional<Stored> findByCredential(byte[] credentialId) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps =
                    conn.prepareStatement("SELECT " + COLUMNS + " FROM passkeys WHERE credential_id = ?")) {
                ps.setBytes(1, credentialId);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(stored(rs)) : Optional.empty();
                }
            }
        });
    }

    @Override
    public boolean recordUse(String id, long checkedCount, long newCount, boolean backedUp, Instant now) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("UPDATE passkeys SET sign_count = ?, backed_up = ?, "
                    + "last_used_at = ? WHERE id = ? AND sign_count = ?")) {
                ps.setLong(1, newCount);
                ps.setBoolean(2, backedUp);
                ps.setTimestamp(3, Timestamp.from(now));
                ps.setString(4, id);
                ps.setLong(5, checkedCount);
                return ps.executeUpdate() == 1;
            }
        });
    }

    @Override
    public boolean remove(UserId user, String id, AuditEntry audit) {
        return db.inTransaction(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("DELETE FROM passkeys WHERE id = ? AND user_id = ?")) {
                ps.setString(1, id);
                ps.setString(2, user.value());
                if (ps.executeUpdate() != 1) {
                    return false;
                }
            }
            EventOutbox.appendAudit(conn, audit);
            return true;
        });
    }

    private static Stored stored(ResultSet rs) throws SQLException {
        Passkey passkey = new Passkey(
                rs.getString("id"),
                rs.getString("name"),
                Sql.strings(rs, "transports"),
                rs.getBoolean("backed_up"),
                Sql.requiredInstant(rs, "created_at"),
                Sql.instant(rs, "last_used_at"));
        return new Stored(
                passkey,
                UserId.of(rs.getString("user_id")),
                rs.getBytes("credential_id"),
                rs.getBytes("attested_credential_data"),
                rs.getLong("sign_count"),
                rs.getBoolean("uv_initialized"),
                rs.getBoolean("backup_eligible"));
    }
}
