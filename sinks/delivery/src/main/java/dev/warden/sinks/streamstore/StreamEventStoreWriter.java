package dev.warden.sinks.streamstore;

import dev.warden.pipeline.contract.AuditBatch;
import dev.warden.pipeline.contract.AuditBatchRows;
import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.SinkNames;
import dev.warden.pipeline.contract.StreamEventCodec;
import dev.warden.runtime.consumer.BatchTransaction;
import dev.warden.runtime.consumer.BatchWriter;
import dev.warden.runtime.consumer.DeadLetter;
import dev.warden.runtime.consumer.DeadLetters;
import dev.warden.runtime.consumer.SinkOffsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;

/**
 * Persists {@code warden.events} into {@code service_stream_events} for replay, exactly once (rows and the
 * next offset in one transaction; {@code ON CONFLICT DO NOTHING} as a second guard). The row id is the
 * event's offset. Rows older than the retention are deleted periodically. A record that does not decode, or
 * that PostgreSQL refuses, is dead-lettered (see {@link dev.warden.runtime.consumer.SinkWorker}).
 */
public final class StreamEventStoreWriter implements BatchWriter {
    /** The name this sink stores its offsets under. */
    public static final String SINK = SinkNames.STREAM_STORE;

    private static final Logger LOG = Logger.getLogger(StreamEventStoreWriter.class.getName());
    static final String INSERT = "INSERT INTO service_stream_events (id, type, timestamp, data, agent_id, user_id, "
            + "batch, audit_rows) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING";
    static final String EXPIRE = "DELETE FROM service_stream_events WHERE timestamp < ?";

    private final DataSource dataSource;
    private final String topic;
    private final Duration retention;
    private final InstantSource clock;
    private Instant nextExpiry = Instant.MIN;

    public StreamEventStoreWriter(DataSource dataSource, String topic, Duration retention, InstantSource clock) {
        this.dataSource = dataSource;
        this.topic = topic;
        this.retention = retention;
        this.clock = clock;
    }

    @Override
    public Map<TopicPartition, Long> storedOffsets(Collection<TopicPartition> partitions) {
        return SinkOffsets.read(dataSource, SINK, topic, partitions);
    }

    @Override
    public WriteResult write(List<ConsumerRecord<String, byte[]>> records, Map<TopicPartition, Long> nextOffsets) {
        return BatchTransaction.write(dataSource, SINK, "stream events", nextOffsets, (conn, undecodable) -> {
            long written = 0;
            try (PreparedStatement ps = conn.prepareStatement(INSERT)) {
                for (ConsumerRecord<String, byte[]> record : records) {
                    Optional<String> problem = bindIfDecodable(ps, record);
                    if (problem.isPresent()) {
                        undecodable.add(DeadLetter.of(SINK, record, "undecodable stream event: " + problem.get()));
                        continue;
                    }
                    ps.addBatch();
                }
                for (int n : ps.executeBatch()) {
                    written += Math.max(n, 0);
                }
            }
            return written;
        });
    }

    /** Binds {@code record}'s row; answers why it cannot be, when it does not decode. */
    private static Optional<String> bindIfDecodable(PreparedStatement ps, ConsumerRecord<String, byte[]> record)
            throws SQLException {
        if (AuditBatch.isBatch(record.headers())) {
            return bindBatch(ps, record);
        }
        // The data is stored as the text it arrived in: nothing here reads its members (D198).
        StreamEventCodec.Envelope event;
        try {
            event = StreamEventCodec.decodeEnvelope(record.value());
        } catch (IllegalArgumentException e) {
            return Optional.of(String.valueOf(e.getMessage()));
        }
        ps.setLong(1, record.offset());
        ps.setString(2, event.type().wireName());
        ps.setTimestamp(3, Timestamp.from(event.timestamp()));
        ps.setObject(4, event.dataJson(), Types.OTHER);
        ps.setString(5, event.agentId().orElse(null));
        ps.setString(6, event.userId().orElse(null));
        ps.setNull(7, Types.BINARY);
        ps.setNull(8, Types.BINARY);
        return Optional.empty();
    }

    /**
     * An audit batch is one row (its structure checked here, its entries decoded only when replayed): the keys of
     * its entries' rows in {@code audit_events} when the record carries them ({@link AuditBatchRows}, one for each
     * entry), else its bytes as they are. Its timestamp is its newest entry's record time, so a replay
     * {@code since} a time finds every batch that may hold a later one.
     */
    private static Optional<String> bindBatch(PreparedStatement ps, ConsumerRecord<String, byte[]> record)
            throws SQLException {
        AuditBatch.Summary batch;
        try {
            batch = AuditBatch.summary(record.value());
        } catch (IllegalArgumentException e) {
            return Optional.of(String.valueOf(e.getMessage()));
        }
        Header rows = record.headers().lastHeader(AuditBatchRows.HEADER);
        boolean byRows = AuditBatchRows.of(record.headers())
                .filter(keys -> keys.size() == batch.count())
                .isPresent();
        ps.setLong(1, record.offset());
        ps.setString(2, EventType.AUDIT.wireName());
        ps.setTimestamp(3, new Timestamp(batch.newestTimestamp()));
        ps.setObject(4, "{}", Types.OTHER);
        ps.setNull(5, Types.VARCHAR);
        ps.setNull(6, Types.VARCHAR);
        if (byRows) {
            ps.setNull(7, Types.BINARY);
            ps.setBytes(8, rows.value());
        } else {
            ps.setBytes(7, record.value());
            ps.setNull(8, Types.BINARY);
        }
        return Optional.empty();
    }

    @Override
    public void deadLetter(DeadLetter letter, Map<TopicPartition, Long> nextOffsets) {
        DeadLetters.storeWithOffsets(dataSource, SINK, letter, nextOffsets);
    }

    @Override
    public void afterCommit(WriteResult result) {
        Instant now = clock.instant();
        if (now.isBefore(nextExpiry)) {
            return;
        }
        nextExpiry = now.plus(Duration.ofMinutes(10));
        try (Connection conn = dataSource.getConnection();
                PreparedStatement ps = conn.prepareStatement(EXPIRE)) {
            ps.setTimestamp(1, Timestamp.from(now.minus(retention)));
            int deleted = ps.executeUpdate();
            if (deleted > 0) {
                LOG.fine("expired " + deleted + " stream events");
            }
        } catch (SQLException e) {
            LOG.warning("could not expire old stream events: " + e.getMessage());
        }
    }
}
