package dev.warden.api.doctor;

import dev.warden.runtime.db.Database;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Instant;

/** {@link ApiInstanceRepository} on Postgres table {@code api_instances}. */
public final class JdbcApiInstanceRepository implements ApiInstanceRepository {
    static final String BEAT = "INSERT INTO api_instances (instance_id, roles, seen_at) VALUES (?, ?, ?) "
            + "ON CONFLICT (instance_id) DO UPDATE SET roles = EXCLUDED.roles, seen_at = EXCLUDED.seen_at";
    static final String FORGET = "DELETE FROM api_instances WHERE seen_at < ?";
    static final String COUNT_SEEN = "SELECT count(*) FROM api_instances WHERE seen_at >= ?";

    private final Database db;

    /** Heartbeats kept in {@code db}, which must be migrated ({@code V15__api_instances.sql}). */
    public JdbcApiInstanceRepository(Database db) {
        this.db = db;
    }

    @Override
    public void beat(String instanceId, String roles, Instant at) {
        db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(BEAT)) {
                ps.setString(1, instanceId);
                ps.setString(2, roles);
                ps.setTimestamp(3, Timestamp.from(at));
                return ps.executeUpdate();
            }
        });
    }

    @Override
    public void forgetBefore(Instant before) {
        db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(FORGET)) {
                ps.setTimestamp(1, Timestamp.from(before));
                return ps.executeUpdate();
            }
        });
    }

    @Override
    public long seenSince(Instant since) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(COUNT_SEEN)) {
                ps.setTimestamp(1, Timestamp.from(since));
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
    }
}
