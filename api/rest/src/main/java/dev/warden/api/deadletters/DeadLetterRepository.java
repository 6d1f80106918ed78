package dev.warden.api.deadletters;

import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.Sql;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The records sinks gave up on, as stored in {@code sink_dead_letters}, read newest first. */
public final class DeadLetterRepository {
    static final String LIST = "SELECT id, sink, topic, partition, record_offset, record_key, record_value, error, "
            + "failed_at FROM sink_dead_letters WHERE (?::text IS NULL OR sink = ?) ORDER BY id DESC LIMIT ?";

    /** One record a sink refused: where it was, its bytes (key and value may be absent), and why. */
    public record StoredDeadLetter(
            long id,
            String sink,
            String topic,
            int partition,
            long offset,
            Optional<byte[]> key,
            Optional<byte[]> value,
            String error,
            Instant failedAt) {}

    private final Database db;

    public DeadLetterRepository(Database db) {
        this.db = db;
    }

    /** At most {@code limit} of the newest dead letters, of {@code sink} only when given. */
    public List<StoredDeadLetter> newest(Optional<String> sink, int limit) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(LIST)) {
                ps.setString(1, sink.orElse(null));
                ps.setString(2, sink.orElse(null));
                ps.setInt(3, limit);
                List<StoredDeadLetter> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new StoredDeadLetter(
                                rs.getLong("id"),
                                rs.getString("sink"),
                                rs.getString("topic"),
                                rs.getInt("partition"),
                                rs.getLong("record_offset"),
                                Optional.ofNullable(rs.getBytes("record_key")),
                                Optional.ofNullable(rs.getBytes("record_value")),
                                rs.getString("error"),
                                Sql.requiredInstant(rs, "failed_at")));
                    }
                }
                return out;
            }
        });
    }
}
