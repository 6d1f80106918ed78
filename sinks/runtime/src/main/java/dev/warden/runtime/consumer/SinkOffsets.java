package dev.warden.runtime.consumer;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.kafka.common.TopicPartition;

/**
 * The {@code sink_offsets} table: where each sink resumes. Writers store the next offsets in the same
 * transaction as the rows they cover.
 */
public final class SinkOffsets {
    static final String UPSERT = "INSERT INTO sink_offsets (sink, topic, partition, next_offset, updated_at) "
            + "VALUES (?, ?, ?, ?, now()) ON CONFLICT (sink, topic, partition) DO UPDATE "
            + "SET next_offset = EXCLUDED.next_offset, updated_at = now()";
    static final String READ = "SELECT partition, next_offset FROM sink_offsets WHERE sink = ? AND topic = ?";

    private SinkOffsets() {}

    /** The stored next offset of each of {@code partitions} (of one topic) that has one. */
    public static Map<TopicPartition, Long> read(
            DataSource dataSource, String sink, String topic, Collection<TopicPartition> partitions) {
        try (Connection conn = dataSource.getConnection();
                PreparedStatement ps = conn.prepareStatement(READ)) {
            ps.setString(1, sink);
            ps.setString(2, topic);
            Map<TopicPartition, Long> out = new HashMap<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    TopicPartition tp = new TopicPartition(topic, rs.getInt(1));
                    if (partitions.contains(tp)) {
                        out.put(tp, rs.getLong(2));
                    }
                }
            }
            return out;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read stored offsets of " + sink + ": " + e.getMessage(), e);
        }
    }

    /** Stores {@code nextOffsets} for {@code sink} within the caller's transaction on {@code conn}. */
    public static void store(Connection conn, String sink, Map<TopicPartition, Long> nextOffsets) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(UPSERT)) {
            for (Map.Entry<TopicPartition, Long> e : nextOffsets.entrySet()) {
                ps.setString(1, sink);
                ps.setString(2, e.getKey().topic());
                ps.setInt(3, e.getKey().partition());
                ps.setLong(4, e.getValue());
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }
}
