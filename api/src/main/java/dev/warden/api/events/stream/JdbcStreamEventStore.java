package dev.warden.api.events.stream;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import dev.warden.api.db.Database;
import dev.warden.api.db.Sql;
import dev.warden.api.db.StoredRows;
import dev.warden.authorizer.domain.WireEnum;
import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.Json;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.sinks.SinkNames;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** {@link StreamEventStore} on {@code service_stream_events} and the stream-store sink's offsets. */
public final class JdbcStreamEventStore implements StreamEventStore {
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() { };
    private static final String COLUMNS = "id, type, timestamp, data, agent_id, user_id";
    static final String THROUGH = "SELECT next_offset FROM sink_offsets WHERE sink = '" + SinkNames.STREAM_STORE
            + "' AND topic = ? AND partition = 0";
    static final String OLDEST = "SELECT min(id) FROM service_stream_events";
    static final String AFTER = "SELECT " + COLUMNS + " FROM service_stream_events WHERE id > ? AND id <= ? "
            + "ORDER BY id LIMIT ?";
    static final String SINCE = "SELECT " + COLUMNS + " FROM service_stream_events WHERE timestamp >= ? AND id > ? "
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
                    return rs.next() ? rs.getLong(1) - 1 : -1L;
                }
            }
        });
    }

    @Override
    public long oldestRetained() {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(OLDEST); ResultSet rs = ps.executeQuery()) {
                rs.next();
                long min = rs.getLong(1);
                return rs.wasNull() ? -1L : min;
            }
        });
    }

    @Override
    public Page after(long after, long upTo, int limit) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(AFTER)) {
                ps.setLong(1, after);
                ps.setLong(2, upTo);
                ps.setInt(3, limit);
                return readPage(ps);
            }
        });
    }

    @Override
    public Page since(Instant since, long afterId, long upTo, int limit) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(SINCE)) {
                ps.setTimestamp(1, Timestamp.from(since));
                ps.setLong(2, afterId);
                ps.setLong(3, upTo);
                ps.setInt(4, limit);
                return readPage(ps);
            }
        });
    }

    @Override
    public List<StreamEvent> newestSince(Instant since, Set<EventType> types, int limit) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(NEWEST)) {
                ps.setTimestamp(1, Timestamp.from(since));
                java.sql.Array names = conn.createArrayOf("text", types.stream().map(EventType::wireName).toArray());
                ps.setArray(2, names);
                ps.setArray(3, names);
                ps.setInt(4, limit);
                return readAll(ps);
            }
        });
    }

    private static List<StreamEvent> readAll(PreparedStatement ps) throws SQLException {
        return readPage(ps).events();
    }

    private static Page readPage(PreparedStatement ps) throws SQLException {
        List<StreamEvent> out = new ArrayList<>();
        int rows = 0;
        long lastId = -1;
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                rows++;
                lastId = rs.getLong("id");
                StoredRows.read("service_stream_events", "id", rs, JdbcStreamEventStore::read).ifPresent(out::add);
            }
        }
        return new Page(out, rows, lastId);
    }

    private static StreamEvent read(ResultSet rs) throws SQLException, JsonProcessingException {
        return new StreamEvent(Long.toString(rs.getLong("id")),
                WireEnum.parse(EventType.class, rs.getString("type")).orElseThrow(),
                Sql.requiredInstant(rs, "timestamp"),
                Json.mapper().readValue(rs.getString("data"), MAP),
                Sql.string(rs, "agent_id"), Sql.string(rs, "user_id"));
    }
}
