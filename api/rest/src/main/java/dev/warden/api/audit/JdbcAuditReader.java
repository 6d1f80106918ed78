package dev.warden.api.audit;

import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditResult;
import dev.warden.pipeline.contract.AuditRows;
import dev.warden.pipeline.contract.SinkNames;
import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.StoredRows;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/** Reads {@code audit_events}: filtered pages for {@code GET /audit}, streamed cursors for exports. */
public final class JdbcAuditReader {
    private static final String COLUMNS = AuditRows.COLUMNS;
    /** Every filter is "unset or equal"; the scope columns restrict what the caller may see. */
    static final String WHERE = " WHERE (?::text IS NULL OR user_id = ?) AND (?::text IS NULL OR agent_id = ?)"
            + " AND (?::text IS NULL OR agent_id = ?) AND (?::text IS NULL OR user_id = ?)"
            + " AND (?::timestamptz IS NULL OR ts >= ?) AND (?::timestamptz IS NULL OR ts < ?)"
            + " AND (cardinality(?::text[]) = 0 OR action = ANY(?::text[])) AND (?::text IS NULL OR result = ?)";

    static final String QUERY =
            "SELECT " + COLUMNS + " FROM audit_events" + WHERE + " ORDER BY ts DESC, id DESC LIMIT ? OFFSET ?";
    static final String EXPORT = "SELECT " + COLUMNS + " FROM audit_events" + WHERE + " ORDER BY ts, id";
    static final String FIND = "SELECT " + COLUMNS + " FROM audit_events WHERE id = ?"
            + " AND (?::text IS NULL OR user_id = ?) AND (?::text IS NULL OR agent_id = ?) LIMIT 1";
    static final String OFFSETS = "SELECT partition, next_offset FROM sink_offsets WHERE sink = '"
            + SinkNames.POSTGRES_AUDIT + "' AND topic = ?";

    private final Database db;
    private final String topic;

    public JdbcAuditReader(Database db, String topic) {
        this.db = db;
        this.topic = topic;
    }

    /** One page of entries, newest first. */
    public List<AuditEntry> query(AuditScope scope, AuditQuery q) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(QUERY)) {
                int i = bind(conn, ps, scope, q);
                ps.setInt(i++, q.limit());
                ps.setInt(i, q.offset());
                List<AuditEntry> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        StoredRows.read("audit_events", "id", rs, AuditRows::entry)
                                .ifPresent(out::add);
                    }
                }
                return out;
            }
        });
    }

    /** The entry with this id, if the scope lets the caller see it. */
    public Optional<AuditEntry> find(AuditScope scope, String id) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(FIND)) {
                ps.setString(1, id);
                int i = pair(ps, 2, scope.userId().orElse(null));
                pair(ps, i, scope.agentId().orElse(null));
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? StoredRows.read("audit_events", "id", rs, AuditRows::entry) : Optional.empty();
                }
            }
        });
    }

    /** Streams every matching entry, oldest first, to {@code sink} with a server-side cursor (constant memory). */
    public void export(AuditScope scope, AuditQuery q, Consumer<AuditEntry> sink) {
        db.withConnection(conn -> {
            conn.setAutoCommit(false);
            try (PreparedStatement ps = conn.prepareStatement(EXPORT)) {
                ps.setFetchSize(1000);
                bind(conn, ps, scope, q);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        StoredRows.read("audit_events", "id", rs, AuditRows::entry)
                                .ifPresent(sink);
                    }
                }
            } finally {
                conn.rollback();
                conn.setAutoCommit(true);
            }
            return null;
        });
    }

    /**
     * Waits (at most {@code timeout}) until the Postgres writer has stored every offset in {@code acknowledged}
     * (partition to the last offset to have been stored), so that a read sees every entry up to those offsets.
     */
    public void awaitWritten(Map<Integer, Long> acknowledged, Duration timeout) {
        if (acknowledged.isEmpty()) {
            return;
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Map<Integer, Long> stored = storedOffsets();
            boolean caughtUp =
                    acknowledged.entrySet().stream().allMatch(e -> stored.getOrDefault(e.getKey(), 0L) > e.getValue());
            if (caughtUp) {
                return;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private Map<Integer, Long> storedOffsets() {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(OFFSETS)) {
                ps.setString(1, topic);
                Map<Integer, Long> out = new HashMap<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.put(rs.getInt(1), rs.getLong(2));
                    }
                }
                return out;
            }
        });
    }

    private static int bind(Connection conn, PreparedStatement ps, AuditScope scope, AuditQuery q) throws SQLException {
        int i = 1;
        i = pair(ps, i, scope.userId().orElse(null));
        i = pair(ps, i, scope.agentId().orElse(null));
        i = pair(ps, i, q.agentId().orElse(null));
        i = pair(ps, i, q.userId().orElse(null));
        Timestamp since = q.since().map(Timestamp::from).orElse(null);
        Timestamp until = q.until().map(Timestamp::from).orElse(null);
        ps.setTimestamp(i++, since);
        ps.setTimestamp(i++, since);
        ps.setTimestamp(i++, until);
        ps.setTimestamp(i++, until);
        Array actions = conn.createArrayOf("text", q.actions().toArray());
        ps.setArray(i++, actions);
        ps.setArray(i++, actions);
        i = pair(ps, i, q.result().map(AuditResult::wireName).orElse(null));
        return i;
    }

    private static int pair(PreparedStatement ps, int i, String value) throws SQLException {
        ps.setString(i, value);
        ps.setString(i + 1, value);
        return i + 2;
    }
}
