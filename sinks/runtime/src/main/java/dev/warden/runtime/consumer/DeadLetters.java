package dev.warden.runtime.consumer;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.kafka.common.TopicPartition;

/**
 * The {@code sink_dead_letters} table. The Postgres sinks write a dead letter in the same transaction as the
 * offsets past its record, so a record is either written, or dead-lettered, or still to be read: never nowhere,
 * never twice. Sinks whose offsets live elsewhere (webhooks, external audit sinks) write at least once.
 */
public final class DeadLetters {
    static final String INSERT = "INSERT INTO sink_dead_letters (sink, topic, partition, record_offset, record_key, "
            + "record_value, error) VALUES (?, ?, ?, ?, ?, ?, ?)";

    private DeadLetters() {}

    /** Stores {@code letters} within the caller's transaction on {@code conn}. */
    public static void store(Connection conn, Collection<DeadLetter> letters) throws SQLException {
        if (letters.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = conn.prepareStatement(INSERT)) {
            for (DeadLetter letter : letters) {
                ps.setString(1, letter.sink());
                ps.setString(2, letter.topic());
                ps.setInt(3, letter.partition());
                ps.setLong(4, letter.offset());
                ps.setBytes(5, letter.key().orElse(null));
                ps.setBytes(6, letter.value().orElse(null));
                ps.setString(7, letter.error());
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /**
     * Stores {@code letter} and the next offsets of {@code sink} in one transaction: what a Postgres sink's
     * {@link BatchWriter#deadLetter} does.
     *
     * @throws IllegalStateException when nothing was stored
     */
    public static void storeWithOffsets(
            DataSource dataSource, String sink, DeadLetter letter, Map<TopicPartition, Long> nextOffsets) {
        try (Connection conn = dataSource.getConnection()) {
            conn.setAutoCommit(false);
            try {
                store(conn, List.of(letter));
                SinkOffsets.store(conn, sink, nextOffsets);
                conn.commit();
            } catch (SQLException | RuntimeException e) {
                conn.rollback();
                throw new IllegalStateException("dead letter not stored: " + e.getMessage(), e);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("dead letter not stored: " + e.getMessage(), e);
        }
    }

    /** Stores {@code letters} in a transaction of their own (sinks whose offsets live in Kafka). */
    public static void store(DataSource dataSource, Collection<DeadLetter> letters) {
        try (Connection conn = dataSource.getConnection()) {
            store(conn, letters);
        } catch (SQLException e) {
            throw new IllegalStateException("dead letters not stored: " + e.getMessage(), e);
        }
    }
}
