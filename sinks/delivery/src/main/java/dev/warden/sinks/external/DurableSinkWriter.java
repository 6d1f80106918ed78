package dev.warden.sinks.external;

import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditEntryCodec;
import dev.warden.pipeline.contract.SinkNames;
import dev.warden.runtime.consumer.BatchWriter;
import dev.warden.runtime.consumer.DeadLetter;
import dev.warden.runtime.consumer.DeadLetters;
import dev.warden.runtime.consumer.PoisonedBatchException;
import dev.warden.runtime.consumer.SinkCounters;
import dev.warden.runtime.consumer.SinkOffsets;
import dev.warden.runtime.consumer.SinkWorker;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * One external audit sink as a durable consumer of {@code warden.audit} (docs/audit-sinks.md): its own position in
 * {@code sink_offsets} (as {@code audit-sink:<name>}), stored once the destination accepted a batch, so every entry
 * arrives at least once and in order, whatever the outage and whichever instance resumes; a duplicate only where a
 * delivery crossed a crash before its position was stored (the entry id lets the receiver drop it). A sink that
 * sends a batch in several requests (CloudEvents' structured mode) says how many entries arrived before one failed;
 * their position is stored, so the retry begins at the first entry not accepted instead of sending them again.
 *
 * <p>A transient failure (I/O, timeout, 408, 429, 5xx) fails the batch: the worker reads it again after
 * {@link #retryDelay}, exponential with full jitter up to a ceiling, or what the destination asked with
 * {@code Retry-After}; it retries for as long as the topic keeps the entries. A permanent refusal (another 4xx)
 * isolates the refused entry, which is dead-lettered with the position past it; the others arrive.
 * {@code AuditSinkFailed} counts once per failing batch, however many attempts it takes.
 */
public final class DurableSinkWriter implements BatchWriter {
    private static final Logger LOG = Logger.getLogger(DurableSinkWriter.class.getName());
    /** The longest {@code Retry-After} honoured (a longer one is read as this). */
    public static final Duration RETRY_AFTER_MAX = Duration.ofMinutes(10);
    /** The first retry waits up to this (full jitter: anything from a tenth of it). */
    static final Duration BASE = Duration.ofMillis(500);

    private final AuditSink sink;
    private final String name;
    private final DataSource dataSource;
    private final String topic;
    private final SinkCounters counters;
    private final Duration ceiling;
    /** The first offset of the last batch counted as failed, so that retries of it are not counted again. */
    private String lastCountedFailure = "";

    /**
     * @param ceiling the longest backoff between two attempts
     */
    public DurableSinkWriter(
            AuditSink sink, DataSource dataSource, String topic, SinkCounters counters, Duration ceiling) {
        this.sink = sink;
        this.name = SinkNames.AUDIT_SINK_PREFIX + sink.name();
        this.dataSource = dataSource;
        this.topic = topic;
        this.counters = counters;
        this.ceiling = ceiling;
    }

    /** The name the sink's position, dead letters and control are kept under: {@code audit-sink:<name>}. */
    public String name() {
        return name;
    }

    @Override
    public Map<TopicPartition, Long> storedOffsets(Collection<TopicPartition> partitions) {
        return SinkOffsets.read(dataSource, name, topic, partitions);
    }

    @Override
    public WriteResult write(List<ConsumerRecord<String, byte[]>> records, Map<TopicPartition, Long> nextOffsets) {
        return prepare(records, nextOffsets).store();
    }

    @Override
    public PreparedBatch prepare(List<ConsumerRecord<String, byte[]>> records, Map<TopicPartition, Long> nextOffsets) {
        List<AuditEntry> entries = new ArrayList<>(records.size());
        List<Integer> recordOfEntry = new ArrayList<>(records.size());
        List<DeadLetter> undecodable = new ArrayList<>();
        for (int i = 0; i < records.size(); i++) {
            ConsumerRecord<String, byte[]> record = records.get(i);
            try {
                entries.add(AuditEntryCodec.decode(record.value()));
                recordOfEntry.add(i);
            } catch (RuntimeException e) {
                undecodable.add(DeadLetter.of(name, record, "undecodable audit record: " + e.getMessage()));
            }
        }
        String first = records.isEmpty()
                ? ""
                : records.getFirst().partition() + "@" + records.getFirst().offset();
        Map<TopicPartition, Long> offsets = Map.copyOf(nextOffsets);
        return () -> {
            if (!entries.isEmpty()) {
                try {
                    deliver(entries, first);
                } catch (AuditSink.SinkException e) {
                    if (e.delivered() <= 0) {
                        throw e;
                    }
                    // The head of the batch arrived: record it, so that the retry starts at the refused entry
                    // instead of sending the head again. Even a refusal of the content is retried as a new
                    // batch (which then isolates the refused entry from its first record on).
                    storeDeliveredHead(records, recordOfEntry.get(e.delivered() - 1) + 1, undecodable);
                    throw new AuditSink.SinkException(e.getMessage(), e, false, e.retryAfter());
                }
            }
            storePosition(undecodable, offsets);
            return new WriteResult(entries.size(), undecodable.size());
        };
    }

    /**
     * Stores the position past the first {@code count} records of a batch, and the dead letters among them; if
     * it cannot, the head is sent again with the rest (a duplicate the receiver drops by id).
     */
    private void storeDeliveredHead(
            List<ConsumerRecord<String, byte[]>> records, int count, List<DeadLetter> undecodable) {
        List<ConsumerRecord<String, byte[]>> head = records.subList(0, count);
        Map<TopicPartition, Long> past = SinkWorker.nextOffsets(head);
        List<DeadLetter> letters = undecodable.stream()
                .filter(letter -> letter.offset()
                        < past.getOrDefault(new TopicPartition(letter.topic(), letter.partition()), Long.MIN_VALUE))
                .toList();
        try {
            storePosition(letters, past);
        } catch (RuntimeException e) {
            LOG.warning(name + ": the delivered head of a failing batch was not recorded: " + e.getMessage());
        }
    }

    private void deliver(List<AuditEntry> entries, String first) {
        try {
            sink.send(entries);
        } catch (AuditSink.SinkException e) {
            countOnce(first);
            if (e.permanent() && e.delivered() <= 0) {
                throw new PoisonedBatchException(e.getMessage(), e);
            }
            throw e;
        } catch (RuntimeException e) {
            countOnce(first);
            throw new AuditSink.SinkException(sink.name() + ": " + e.getMessage(), e);
        }
    }

    /** Counts the batch starting at {@code first} as failed ({@code AuditSinkFailed}), once however many attempts. */
    private void countOnce(String first) {
        if (!first.equals(lastCountedFailure)) {
            lastCountedFailure = first;
            counters.sinkFailed();
        }
    }

    private void storePosition(List<DeadLetter> letters, Map<TopicPartition, Long> offsets) {
        try (Connection conn = dataSource.getConnection()) {
            conn.setAutoCommit(false);
            try {
                try (java.sql.Statement st = conn.createStatement()) {
                    // A position lost to a PostgreSQL crash only sends its batch again (a duplicate the receiver
                    // drops by id); waiting for the WAL flush per batch would cap the sink at a few batches a second.
                    st.execute("SET LOCAL synchronous_commit = off");
                }
                DeadLetters.store(conn, letters);
                SinkOffsets.store(conn, name, offsets);
                conn.commit();
            } catch (SQLException | RuntimeException e) {
                conn.rollback();
                throw e;
            }
        } catch (SQLException e) {
            // Delivered but not recorded: the batch is sent again (a duplicate the receiver can drop by id).
            throw new IllegalStateException(
                    name + ": delivered, but its position was not stored: " + e.getMessage(), e);
        }
    }

    @Override
    public void deadLetter(DeadLetter letter, Map<TopicPartition, Long> nextOffsets) {
        LOG.warning(name + ": the destination refuses " + letter.topic() + "-" + letter.partition() + "@"
                + letter.offset() + "; dead-lettered: " + letter.error());
        DeadLetters.storeWithOffsets(dataSource, name, letter, nextOffsets);
    }

    @Override
    public void resetOffsets(Map<TopicPartition, Long> nextOffsets) {
        storePosition(List.of(), nextOffsets);
    }

    /**
     * What the destination asked ({@code Retry-After}, up to {@link #RETRY_AFTER_MAX}), else exponential backoff
     * with full jitter: a random wait up to {@code BASE × 2^(n-1)}, capped at the sink's ceiling.
     */
    @Override
    public Duration retryDelay(Throwable failure, int consecutiveFailures) {
        Throwable cause = failure;
        while (cause != null && !(cause instanceof AuditSink.SinkException)) {
            cause = cause.getCause();
        }
        if (cause instanceof AuditSink.SinkException e && e.retryAfter().isPresent()) {
            Duration asked = e.retryAfter().get();
            return asked.compareTo(RETRY_AFTER_MAX) > 0 ? RETRY_AFTER_MAX : asked;
        }
        return backoff(consecutiveFailures, ceiling, ThreadLocalRandom.current().nextDouble());
    }

    /** Full jitter: {@code random × min(ceiling, BASE × 2^(n-1))}, at least a tenth of {@code BASE}. */
    public static Duration backoff(int consecutiveFailures, Duration ceiling, double random) {
        int exponent = Math.min(Math.max(consecutiveFailures - 1, 0), 30);
        long cap = Math.min(ceiling.toMillis(), BASE.toMillis() << exponent);
        return Duration.ofMillis(Math.max(BASE.toMillis() / 10, (long) (random * cap)));
    }
}
