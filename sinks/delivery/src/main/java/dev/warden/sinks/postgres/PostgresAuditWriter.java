package dev.warden.sinks.postgres;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.warden.pipeline.contract.AuditBatch;
import dev.warden.pipeline.contract.AuditBatchRows;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditEntryCodec;
import dev.warden.pipeline.contract.Json;
import dev.warden.pipeline.contract.SinkNames;
import dev.warden.pipeline.contract.TraceHeaders;
import dev.warden.runtime.consumer.BatchWriter;
import dev.warden.runtime.consumer.DeadLetter;
import dev.warden.runtime.consumer.DeadLetters;
import dev.warden.runtime.consumer.PoisonedBatchException;
import dev.warden.runtime.consumer.SinkCounters;
import dev.warden.runtime.consumer.SinkOffsets;
import java.io.IOException;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.postgresql.PGConnection;

/**
 * Writes {@code warden.audit} into the append-only {@code audit_events} table, and upserts the next offsets into
 * {@code sink_offsets} in the same transaction: exactly once. Each batch is first COPYed straight into
 * {@code audit_events} (the fast path: offsets in the same transaction mean a batch is normally new). Should a
 * row already be there (its primary key refuses the COPY, e.g. after an offset store was lost), the transaction
 * is rolled back and the batch goes the safe way: COPY into a session-local staging table, then
 * {@code INSERT ... ON CONFLICT DO NOTHING}. Either way a duplicate can never become a second row. With an
 * {@link AuditEventPublisher}, the batch's entries are then published as {@code audit} stream events, last in the
 * same transaction (each entry once: see there). The external audit sinks are not called from here: each is a
 * consumer of {@code warden.audit} of its own ({@code DurableSinkWriter}), so a slow or failing one never delays
 * this write.
 */
public final class PostgresAuditWriter implements BatchWriter, AutoCloseable {
    /** The name this sink stores its offsets under. */
    public static final String SINK = SinkNames.POSTGRES_AUDIT;

    private static final Logger LOG = Logger.getLogger(PostgresAuditWriter.class.getName());
    static final String STAGE = "CREATE TEMP TABLE IF NOT EXISTS audit_stage (LIKE audit_events) ON COMMIT DELETE ROWS";
    static final String COLUMNS = "(id, agent_id, user_id, caller_id, action, resource, parameters, "
            + "result, reason, duration_ms, tokens_cost, ts, ip, user_agent, caller_ip, reason_detail, delegation_chain)";
    static final String COPY = "COPY audit_stage " + COLUMNS + " FROM STDIN WITH (FORMAT csv)";
    static final String COPY_DIRECT = "COPY audit_events " + COLUMNS + " FROM STDIN WITH (FORMAT csv)";
    private static final String UNIQUE_VIOLATION = "23505";
    static final String MERGE = "INSERT INTO audit_events SELECT * FROM audit_stage ON CONFLICT DO NOTHING";
    static final String ENSURE_PARTITION = "SELECT warden_ensure_audit_partition(?)";
    /**
     * The writer's commits do not wait for the WAL flush. Nothing is lost that way: the rows, the stored offsets
     * and the publisher's marks commit together, so a PostgreSQL crash can only take back a recent suffix of whole
     * batches, offsets included, and the writer stores them again from {@code warden.audit} (the decision was
     * answered only once Kafka had its record). What it buys: a slow WAL flush (100-240 ms on the bench machine's
     * disk, seen as {@code IO:WALSync} waits) no longer holds the batch's {@code audit} events and every batch
     * after it (docs/decisions.md, issue 18).
     */
    static final String ASYNC_COMMIT = "SET LOCAL synchronous_commit = off";

    private final DataSource dataSource;
    private final String topic;
    private final SinkCounters counters;
    /** Publishes the stored entries as {@code audit} stream events, or null when those are off. */
    private final AuditEventPublisher events;

    public PostgresAuditWriter(DataSource dataSource, String topic, SinkCounters counters) {
        this(dataSource, topic, counters, null);
    }

    /**
     * As the other constructor, publishing each entry it stores as an {@code audit} stream event through
     * {@code events} (in the same transaction: {@link AuditEventPublisher}); null publishes none. The writer closes
     * it.
     */
    public PostgresAuditWriter(DataSource dataSource, String topic, SinkCounters counters, AuditEventPublisher events) {
        this.dataSource = dataSource;
        this.topic = topic;
        this.counters = counters;
        this.events = events;
    }

    /** Creates the monthly partitions around {@code now} (last month to two months ahead). Idempotent. */
    public void ensurePartitions(Instant now) {
        LocalDate month = LocalDate.ofInstant(now, ZoneOffset.UTC).withDayOfMonth(1);
        try (Connection conn = dataSource.getConnection();
                PreparedStatement ps = conn.prepareStatement(ENSURE_PARTITION)) {
            for (int delta = -1; delta <= 2; delta++) {
                ps.setObject(1, month.plusMonths(delta));
                ps.execute();
            }
        } catch (SQLException e) {
            LOG.log(Level.WARNING, "could not create audit partitions: " + e.getMessage());
        }
    }

    @Override
    public Map<TopicPartition, Long> storedOffsets(Collection<TopicPartition> partitions) {
        return SinkOffsets.read(dataSource, SINK, topic, partitions);
    }

    @Override
    public WriteResult write(List<ConsumerRecord<String, byte[]>> records, Map<TopicPartition, Long> nextOffsets) {
        return prepare(records, nextOffsets).store();
    }

    /**
     * Decodes the records and builds the COPY rows (on the polling thread, while the previous batch stores).
     * A record that does not decode becomes a dead letter, stored in the same transaction as the rows.
     * Thread-safe: it touches nothing but its arguments.
     */
    @Override
    public PreparedBatch prepare(List<ConsumerRecord<String, byte[]>> records, Map<TopicPartition, Long> nextOffsets) {
        List<AuditEntry> entries = new ArrayList<>(records.size());
        List<DeadLetter> undecodable = new ArrayList<>();
        List<AuditEventPublisher.Source> sources = new ArrayList<>(events == null ? 0 : records.size());
        for (ConsumerRecord<String, byte[]> record : records) {
            try {
                AuditEntry entry = AuditEntryCodec.decode(record.value());
                entries.add(entry);
                if (events != null) {
                    sources.add(source(record, entry));
                }
            } catch (RuntimeException e) {
                undecodable.add(DeadLetter.of(SINK, record, "undecodable audit record: " + e.getMessage()));
                LOG.warning("dead-lettering malformed audit record " + record.topic() + "-" + record.partition() + "@"
                        + record.offset() + ": " + e.getMessage());
            }
        }
        String rows = entries.isEmpty() ? "" : csv(entries);
        Map<TopicPartition, Long> offsets = Map.copyOf(nextOffsets);
        return () -> {
            long written = store(rows, undecodable, offsets, sources);
            return new WriteResult(written, undecodable.size());
        };
    }

    /**
     * The stream event's side of a record: where it is, its time, its trace, its bytes (never decoded again), and
     * the key of the row {@code entry} becomes ({@code ts} as the COPY writes it: to the millisecond).
     */
    private static AuditEventPublisher.Source source(ConsumerRecord<String, byte[]> record, AuditEntry entry) {
        return new AuditEventPublisher.Source(
                record.partition(),
                record.offset(),
                new AuditBatch.Entry(record.timestamp(), TraceHeaders.traceparent(record.headers()), record.value()),
                new AuditBatchRows.Key(entry.timestamp().toEpochMilli(), entry.id()));
    }

    private long store(
            String rows,
            List<DeadLetter> undecodable,
            Map<TopicPartition, Long> nextOffsets,
            List<AuditEventPublisher.Source> sources) {
        try (Connection conn = dataSource.getConnection()) {
            conn.setAutoCommit(false);
            try {
                try (Statement st = conn.createStatement()) {
                    st.execute(ASYNC_COMMIT);
                }
                long written = 0;
                if (!rows.isEmpty()) {
                    try {
                        written = conn.unwrap(PGConnection.class)
                                .getCopyAPI()
                                .copyIn(COPY_DIRECT, new StringReader(rows));
                    } catch (SQLException e) {
                        if (!UNIQUE_VIOLATION.equals(e.getSQLState())) {
                            throw e;
                        }
                        conn.rollback();
                        written = merge(conn, rows);
                    }
                }
                DeadLetters.store(conn, undecodable);
                SinkOffsets.store(conn, SINK, nextOffsets);
                // Last before the commit: an entry is published only once its row is in.
                AuditEventPublisher.Published published =
                        events == null || sources.isEmpty() ? null : events.publish(conn, sources);
                conn.commit();
                if (published != null) {
                    events.committed(published);
                }
                return written;
            } catch (SQLException e) {
                conn.rollback();
                if (PoisonedBatchException.isDataError(e)) {
                    throw new PoisonedBatchException("audit batch refused by PostgreSQL: " + e.getMessage(), e);
                }
                throw new IllegalStateException("audit batch not written: " + e.getMessage(), e);
            } catch (IOException | RuntimeException e) {
                conn.rollback();
                throw new IllegalStateException("audit batch not written: " + e.getMessage(), e);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("audit batch not written: " + e.getMessage(), e);
        }
    }

    @Override
    public void deadLetter(DeadLetter letter, Map<TopicPartition, Long> nextOffsets) {
        DeadLetters.storeWithOffsets(dataSource, SINK, letter, nextOffsets);
    }

    /** The safe path: stage, then insert what is not there yet. Answers the rows inserted. */
    private static long merge(Connection conn, String rows) throws SQLException, IOException {
        try (Statement st = conn.createStatement()) {
            st.execute(STAGE);
        }
        conn.unwrap(PGConnection.class).getCopyAPI().copyIn(COPY, new StringReader(rows));
        try (Statement st = conn.createStatement()) {
            return st.executeUpdate(MERGE);
        }
    }

    /** The COPY (CSV) form of {@code entries}, in the column order of {@link #COPY}. */
    public static String csv(List<AuditEntry> entries) {
        StringBuilder out = new StringBuilder(entries.size() * 256);
        for (AuditEntry e : entries) {
            field(out, e.id()).append(',');
            field(out, e.agentId()).append(',');
            field(out, e.userId()).append(',');
            field(out, e.callerId()).append(',');
            field(out, e.action()).append(',');
            field(out, e.resource()).append(',');
            field(out, json(e.parameters())).append(',');
            field(out, e.result().wireName()).append(',');
            field(out, e.reason()).append(',');
            out.append(e.durationMs()).append(',');
            out.append(e.tokensCost()).append(',');
            field(out, Json.timestamp(e.timestamp())).append(',');
            field(out, e.ip()).append(',');
            field(out, e.userAgent()).append(',');
            field(out, e.callerIp()).append(',');
            field(out, e.reasonDetail()).append(',');
            if (!e.delegationChain().isEmpty()) {
                field(out, arrayLiteral(e.delegationChain()));
            }
            out.append('\n');
        }
        return out.toString();
    }

    /** A PostgreSQL array literal of {@code values}, each element quoted (backslash and quote escaped). */
    static String arrayLiteral(List<String> values) {
        StringBuilder literal = new StringBuilder("{");
        for (String value : values) {
            if (literal.length() > 1) {
                literal.append(',');
            }
            literal.append('"');
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if (c == '"' || c == '\\') {
                    literal.append('\\');
                }
                literal.append(c);
            }
            literal.append('"');
        }
        return literal.append('}').toString();
    }

    private static StringBuilder field(StringBuilder out, Optional<String> value) {
        return value.isPresent() ? field(out, value.get()) : out;
    }

    private static StringBuilder field(StringBuilder out, String value) {
        out.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"') {
                out.append('"');
            }
            if (c != 0) {
                out.append(c);
            }
        }
        return out.append('"');
    }

    private static String json(Map<String, Object> value) {
        try {
            return Json.mapper().writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }

    @Override
    public void close() {
        if (events != null) {
            events.close();
        }
    }
}
