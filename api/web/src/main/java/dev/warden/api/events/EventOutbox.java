package dev.warden.api.events;

import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditEntryCodec;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.pipeline.contract.StreamEventCodec;
import dev.warden.runtime.db.Database;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Transactional outbox for lifecycle events and the audit entries of administrative actions. A repository
 * {@link #append appends} the events of a change (and {@link #appendAudit} its audit entry) in the change's own
 * transaction, so a committed change never loses its events or its audit record and a rolled-back one never
 * emits any. The relay then publishes pending rows, events to {@code warden.events} and audit entries to
 * {@code warden.audit}, strictly in commit order ({@code seq}) and deletes them once Kafka has acknowledged them.
 *
 * <p>Delivery to Kafka is at least once: only a broker failure in the middle of a batch can publish an
 * event twice. One relay runs at a time across all instances (a Postgres advisory lock), which keeps the
 * global order. Callers {@link #flush()} after a change so that it is on the topic when they answer; the
 * background relay retries whatever a failed flush left behind.
 */
public final class EventOutbox implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(EventOutbox.class.getName());
    private static final long RELAY_LOCK_ID = 0x5741524445_4E01L;
    private static final int BATCH = 500;

    static final String INSERT = "INSERT INTO event_outbox (topic_key, payload, target) VALUES (?, ?, ?)";
    static final String SELECT_BATCH =
            "SELECT seq, topic_key, payload, target FROM event_outbox ORDER BY seq LIMIT " + BATCH;
    private static final String EVENTS = "events";
    private static final String AUDIT = "audit";
    static final String DELETE_UPTO = "DELETE FROM event_outbox WHERE seq <= ?";

    private final Database db;
    private final Producer<String, byte[]> producer;
    private final String topic;
    private final String auditTopic;
    private final ReentrantLock localLock = new ReentrantLock();
    private final ScheduledExecutorService relay = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("warden-outbox-relay").daemon().factory());

    /**
     * @param topic      where events go ({@code warden.events})
     * @param auditTopic where audit entries go ({@code warden.audit})
     */
    public EventOutbox(Database db, Producer<String, byte[]> producer, String topic, String auditTopic) {
        this.db = db;
        this.producer = producer;
        this.topic = topic;
        this.auditTopic = auditTopic;
    }

    /** Appends {@code events} within the caller's open transaction on {@code conn}, in one JDBC batch. */
    public static void appendAll(Connection conn, List<StreamEvent.Draft> events) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(INSERT)) {
            for (StreamEvent.Draft event : events) {
                ps.setString(1, event.subjectKey());
                ps.setBytes(2, StreamEventCodec.encode(event));
                ps.setString(3, EVENTS);
                ps.addBatch();
            }
            ps.executeBatch();
        }
        // One notification is enough: a listener drops everything it cached, whatever the change.
        for (StreamEvent.Draft event : events) {
            if (event.type().changesAccess()) {
                AccessChanges.notify(conn, event.type());
                break;
            }
        }
    }

    /** Appends {@code event} within the caller's open transaction on {@code conn}. */
    public static void append(Connection conn, StreamEvent.Draft event) throws SQLException {
        appendAll(conn, List.of(event));
    }

    /** Appends the audit entry of an administrative action within the caller's open transaction on {@code conn}. */
    public static void appendAudit(Connection conn, AuditEntry entry) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(INSERT)) {
            ps.setString(1, entry.agentId());
            ps.setBytes(2, AuditEntryCodec.encode(entry));
            ps.setString(3, AUDIT);
            ps.executeUpdate();
        }
    }

    /** Starts the background relay (every {@code periodMillis}). */
    public void start(long periodMillis) {
        relay.scheduleWithFixedDelay(this::relayQuietly, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
    }

    /**
     * Publishes every pending event now. Returns normally even when Kafka is unreachable (the events stay
     * pending and the background relay retries); returns {@code false} in that case.
     */
    public boolean flush() {
        try {
            while (publishBatch() == BATCH) {
                // keep going until the outbox is drained
            }
            return true;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "event outbox flush failed; the relay will retry: " + e.getMessage());
            return false;
        }
    }

    /** Number of events not yet published. */
    public long pending() {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("SELECT count(*) FROM event_outbox");
                    ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }

    private void relayQuietly() {
        flush();
    }

    private int publishBatch() {
        localLock.lock();
        try {
            return db.inTransaction(conn -> {
                try (PreparedStatement ps = conn.prepareStatement(
                        "SET LOCAL lock_timeout = '10s'; SELECT pg_advisory_xact_lock(" + RELAY_LOCK_ID + ")")) {
                    ps.execute();
                }
                List<Future<RecordMetadata>> sends = new ArrayList<>();
                long lastSeq = -1;
                try (PreparedStatement ps = conn.prepareStatement(SELECT_BATCH);
                        ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        lastSeq = rs.getLong(1);
                        String to = AUDIT.equals(rs.getString(4)) ? auditTopic : topic;
                        sends.add(producer.send(new ProducerRecord<>(to, rs.getString(2), rs.getBytes(3))));
                    }
                }
                if (sends.isEmpty()) {
                    return 0;
                }
                awaitAll(sends);
                try (PreparedStatement ps = conn.prepareStatement(DELETE_UPTO)) {
                    ps.setLong(1, lastSeq);
                    ps.executeUpdate();
                }
                return sends.size();
            });
        } finally {
            localLock.unlock();
        }
    }

    private static void awaitAll(List<Future<RecordMetadata>> sends) {
        try {
            for (Future<RecordMetadata> send : sends) {
                send.get(15, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while publishing events", e);
        } catch (Exception e) {
            throw new IllegalStateException("Kafka did not acknowledge events: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        relay.shutdownNow();
        try {
            relay.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
