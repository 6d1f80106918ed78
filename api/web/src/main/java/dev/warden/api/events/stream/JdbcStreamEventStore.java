package dev.warden.api.events.stream;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import dev.warden.pipeline.contract.AuditBatch;
import dev.warden.pipeline.contract.AuditBatchRows;
import dev.warden.pipeline.contract.AuditRows;
import dev.warden.pipeline.contract.EventIds;
import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.Json;
import dev.warden.pipeline.contract.SinkNames;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.pipeline.contract.WireEnum;
import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.Sql;
import dev.warden.runtime.db.StoredRows;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Logger;

/**
 * {@link StreamEventStore} on {@code service_stream_events} and the stream-store sink's offsets. A row is one
 * record of {@code warden.events}: an event, or an {@link AuditBatch} that is expanded here into its events, from
 * the keys of its entries' rows in {@code audit_events} ({@code audit_rows}) or, for a batch stored without them,
 * from its bytes ({@code batch}); a query reads whole rows and keeps the events in the position range it was asked
 * for.
 */
public final class JdbcStreamEventStore implements StreamEventStore {
    private static final Logger LOG = Logger.getLogger(JdbcStreamEventStore.class.getName());
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};
    private static final String TABLE = "service_stream_events";
    private static final String COLUMNS = "id, type, timestamp, data, agent_id, user_id, batch, audit_rows";
    /** A batch's stored entries by their keys, each with its index in the batch. */
    static final String AUDIT_ROWS = "SELECT k.ord - 1 AS batch_index, " + auditColumns("a.")
            + " FROM unnest(?::timestamptz[], ?::text[]) WITH ORDINALITY AS k(ts, id, ord)"
            + " JOIN audit_events a ON a.ts = k.ts AND a.id = k.id ORDER BY k.ord";
    /** How long a replay waits for a recent batch's entries to be committed (the writer commits after it publishes). */
    private static final Duration ROWS_WAIT = Duration.ofSeconds(2);
    /** A batch older than this whose entries are not all found has lost them for good (a dropped audit partition). */
    private static final Duration ROWS_RECENT = Duration.ofSeconds(30);

    static final String THROUGH = "SELECT next_offset FROM sink_offsets WHERE sink = '" + SinkNames.STREAM_STORE
            + "' AND topic = ? AND partition = 0";
    static final String OLDEST = "SELECT min(id) FROM service_stream_events";
    static final String AFTER =
            "SELECT " + COLUMNS + " FROM service_stream_events WHERE id >= ? AND id <= ? " + "ORDER BY id LIMIT ?";
    static final String SINCE = "SELECT " + COLUMNS + " FROM service_stream_events WHERE timestamp >= ? AND id >= ? "
            + "AND id <= ? ORDER BY id LIMIT ?";
    static final String NEWEST = "SELECT " + COLUMNS + " FROM service_stream_events WHERE timestamp >= ? "
            + "AND (cardinality(?::text[]) = 0 OR type = ANY(?::text[])) ORDER BY id DESC LIMIT ?";

    private final Database db;
    private final String topic;

    public JdbcStreamEventStore(Database db, String topic) {
        this.db = db;
        this.topic = topic;
    }

    @Override
    public long storedThrough() {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(THROUGH)) {
                ps.setString(1, topic);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? EventIds.record(rs.getLong(1) - 1) : EventIds.BEFORE_ALL;
                }
            }
        });
    }

    @Override
    public long expiredThrough() {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(OLDEST);
                    ResultSet rs = ps.executeQuery()) {
                rs.next();
                long min = rs.getLong(1);
                return rs.wasNull() ? EventIds.BEFORE_ALL : EventIds.record(min - 1);
            }
        });
    }

    @Override
    public Page after(long after, long upTo, int limit) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(AFTER)) {
                ps.setLong(1, EventIds.offset(after));
                ps.setLong(2, EventIds.offset(upTo));
                ps.setInt(3, limit);
                return readPage(conn, ps, after, upTo, Instant.MIN);
            }
        });
    }

    @Override
    public Page since(Instant since, long after, long upTo, int limit) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(SINCE)) {
                ps.setTimestamp(1, Timestamp.from(since));
                ps.setLong(2, EventIds.offset(after));
                ps.setLong(3, EventIds.offset(upTo));
                ps.setInt(4, limit);
                return readPage(conn, ps, after, upTo, since);
            }
        });
    }

    @Override
    public List<StreamEvent> newestSince(Instant since, Set<EventType> types, int limit) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(NEWEST)) {
                ps.setTimestamp(1, Timestamp.from(since));
                Array names = conn.createArrayOf(
                        "text", types.stream().map(EventType::wireName).toArray());
                ps.setArray(2, names);
                ps.setArray(3, names);
                ps.setInt(4, limit);
                List<StreamEvent> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next() && out.size() < limit) {
                        List<StreamEvent> row = new ArrayList<>(StoredRows.read(TABLE, "id", rs, r -> read(conn, r))
                                .orElse(List.of()));
                        Collections.reverse(row);
                        for (StreamEvent event : row) {
                            if (out.size() < limit && !event.timestamp().isBefore(since)) {
                                out.add(event);
                            }
                        }
                    }
                }
                return out;
            }
        });
    }

    /** The rows' events with {@code after < position <= upTo} and a timestamp from {@code since} on. */
    private static Page readPage(Connection conn, PreparedStatement ps, long after, long upTo, Instant since)
            throws SQLException {
        List<StreamEvent> out = new ArrayList<>();
        int rows = 0;
        long last = after;
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                rows++;
                last = EventIds.record(rs.getLong("id"));
                for (StreamEvent event :
                        StoredRows.read(TABLE, "id", rs, r -> read(conn, r)).orElse(List.of())) {
                    long position = EventIds.parse(event.id()).orElseThrow();
                    if (position > after
                            && position <= upTo
                            && !event.timestamp().isBefore(since)) {
                        out.add(event);
                    }
                }
            }
        }
        return new Page(out, rows, last);
    }

    /**
     * A row's events: the event, or the entries of its batch, from its bytes or, when it holds the keys of their
     * rows, from {@code audit_events} (an entry that does not decode, or whose row is gone, is skipped).
     */
    private static List<StreamEvent> read(Connection conn, ResultSet rs) throws SQLException, JsonProcessingException {
        long offset = rs.getLong("id");
        byte[] rows = rs.getBytes("audit_rows");
        if (rows != null) {
            return auditRows(conn, offset, AuditBatchRows.decode(rows), Sql.requiredInstant(rs, "timestamp"));
        }
        byte[] batch = rs.getBytes("batch");
        if (batch == null) {
            return List.of(new StreamEvent(
                    Long.toString(offset),
                    WireEnum.parse(EventType.class, rs.getString("type")).orElseThrow(),
                    Sql.requiredInstant(rs, "timestamp"),
                    Json.mapper().readValue(rs.getString("data"), MAP),
                    Sql.string(rs, "agent_id"),
                    Sql.string(rs, "user_id")));
        }
        List<AuditBatch.Entry> entries = AuditBatch.decode(batch);
        List<StreamEvent> events = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            String id = EventIds.id(EventIds.batchEntry(offset, i));
            try {
                events.add(AuditBatch.event(entries.get(i).value(), id));
            } catch (IllegalArgumentException e) {
                LOG.warning("skipping unreadable audit event " + id + " of " + TABLE + ": " + e.getMessage());
            }
        }
        return events;
    }

    /**
     * The events of the batch at {@code offset} whose entries are the {@code audit_events} rows {@code keys}, each
     * with its index in the batch as the live stream gave it. The audit writer publishes a batch just before it
     * commits the rows, so a batch written in the last {@link #ROWS_RECENT} whose rows are not all there yet is read
     * again until they are (for at most {@link #ROWS_WAIT}); rows still missing after that, or of an older batch,
     * are gone (audit_events is append-only; an operator dropped an old partition) and their events skipped.
     */
    private static List<StreamEvent> auditRows(
            Connection conn, long offset, List<AuditBatchRows.Key> keys, Instant written)
            throws SQLException, JsonProcessingException {
        long deadline = System.nanoTime() + ROWS_WAIT.toNanos();
        boolean recent = written.isAfter(Instant.now().minus(ROWS_RECENT));
        while (true) {
            List<StreamEvent> events = readAuditRows(conn, offset, keys);
            if (events.size() == keys.size() || !recent || System.nanoTime() > deadline) {
                if (events.size() < keys.size()) {
                    LOG.fine(keys.size() - events.size() + " audit events of the batch at " + offset
                            + " have no row in audit_events: skipped");
                }
                return events;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return events;
            }
        }
    }

    private static List<StreamEvent> readAuditRows(Connection conn, long offset, List<AuditBatchRows.Key> keys)
            throws SQLException, JsonProcessingException {
        Timestamp[] ts = new Timestamp[keys.size()];
        String[] ids = new String[keys.size()];
        for (int i = 0; i < keys.size(); i++) {
            ts[i] = new Timestamp(keys.get(i).timestampMillis());
            ids[i] = keys.get(i).id();
        }
        List<StreamEvent> events = new ArrayList<>(keys.size());
        try (PreparedStatement ps = conn.prepareStatement(AUDIT_ROWS)) {
            ps.setArray(1, conn.createArrayOf("timestamptz", ts));
            ps.setArray(2, conn.createArrayOf("text", ids));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String id = EventIds.id(EventIds.batchEntry(offset, rs.getInt("batch_index")));
                    events.add(AuditBatch.event(AuditRows.entry(rs), id));
                }
            }
        }
        return events;
    }

    private static String auditColumns(String alias) {
        return alias + AuditRows.COLUMNS.replace(", ", ", " + alias);
    }
}
