package dev.warden.sinks.postgres;

import dev.warden.pipeline.contract.AuditBatch;
import dev.warden.pipeline.contract.AuditBatchRows;
import dev.warden.pipeline.contract.TraceHeaders;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.logging.Logger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Publishes the audit entries the audit writer stores as {@code audit} events on {@code warden.events}, many to a
 * record ({@link AuditBatch}), inside the writer's PostgreSQL transaction, just before it commits: each entry is
 * published once, whichever writer stores it and however a writer dies.
 *
 * <p>How: {@link #publish} locks the single row of {@code audit_event_publisher} (publishers take turns), whose
 * {@code marks} hold, per audit partition, the offset after the last entry published; it publishes only the
 * entries at or past their partition's mark, and records the new marks and the batch's offset in the row, in the
 * same transaction. A batch can still be published and its transaction not commit (the process dies, its
 * PostgreSQL session ends, PostgreSQL refuses the commit): it then lies on the topic after the recorded offset, or
 * is still on its way there. To know when that can be, every publish is an <em>attempt</em> with a number taken,
 * under the lock, from a sequence (never rolled back), and every batch names its attempt (header
 * {@value #ATTEMPT_HEADER}); the row records the attempt of the last committed publish. When the number taken is
 * the next after the recorded one (the common case), no other attempt happened since that commit, so nothing
 * unrecorded can lie on the topic: nothing is read. Otherwise the missing attempts did not commit: {@code publish}
 * reads the topic from the recorded offset to its end, takes the marks of every batch found there (each batch
 * names, in the header {@value #SOURCES_HEADER}, the last audit offset it holds of each partition), and waits for
 * the batches of a missing attempt still on their way (at most the producer's delivery timeout and a margin, then
 * the attempt counts as one that sent nothing), so that an entry is never published twice.
 *
 * <p>The producer is idempotent and not transactional: no transaction holds back the topic's other events, and
 * nobody reads the audit topic a second time to copy it (docs/decisions.md, issue 18).
 */
public final class AuditEventPublisher implements AutoCloseable {
    /** The header that names, per audit partition, the last audit offset a batch holds: {@code "p=o,p=o"}. */
    public static final String SOURCES_HEADER = "warden-audit-sources";
    /** The header that names a batch's attempt and its place among the attempt's batches: {@code "n/i/k"}. */
    public static final String ATTEMPT_HEADER = "warden-audit-attempt";
    /** The producer's delivery timeout: after it (and a margin) no batch of a failed attempt is still on its way. */
    static final Duration DELIVERY_TIMEOUT = Duration.ofSeconds(15);

    private static final Logger LOG = Logger.getLogger(AuditEventPublisher.class.getName());
    private static final String LOCK =
            "SELECT events_offset, marks, last_attempt FROM audit_event_publisher WHERE id = 1 FOR UPDATE";
    private static final String ATTEMPT = "SELECT nextval('audit_event_publish_attempt')";
    private static final String RECORD =
            "UPDATE audit_event_publisher SET events_offset = ?, marks = ?, last_attempt = ? WHERE id = 1";

    /**
     * One audit record to publish: where it is in the audit topic, the entry it becomes and, when known, the key of
     * the entry's row in {@code audit_events} (a batch whose entries all have one carries them,
     * {@link AuditBatchRows}).
     */
    public record Source(int partition, long offset, AuditBatch.Entry entry, AuditBatchRows.Key row) {
        /** A record whose row key is not known. */
        public Source(int partition, long offset, AuditBatch.Entry entry) {
            this(partition, offset, entry, null);
        }
    }

    /** What one {@link #publish} did, for {@link #committed}: its attempt. */
    public record Published(long attempt) {}

    private final TopicPartition events;
    private final Tracer tracer;
    private final Duration settleTimeout;
    private final KafkaProducer<String, byte[]> producer;
    private final KafkaConsumer<byte[], byte[]> reader;
    /**
     * This publisher's own attempts that did not commit but whose batches are known to be settled: none sent, or
     * every one acknowledged (and so on the topic). Nobody waits for them; those at or below a committed attempt
     * are forgotten.
     */
    private final Set<Long> settledOwn = new HashSet<>();

    /**
     * @param eventsTopic the events topic (one partition)
     * @param clientId    the Kafka client id prefix
     * @param tracer      continues the traces the entries carry: a span {@code audit event publish} each
     */
    public AuditEventPublisher(String bootstrap, String eventsTopic, String clientId, Tracer tracer) {
        this(bootstrap, eventsTopic, clientId, tracer, DELIVERY_TIMEOUT.plusSeconds(5));
    }

    /**
     * As the other constructor, waiting at most {@code settleTimeout} for the batches of an attempt that did not
     * commit (the delivery timeout and a margin; tests shorten it).
     */
    AuditEventPublisher(String bootstrap, String eventsTopic, String clientId, Tracer tracer, Duration settleTimeout) {
        this.events = new TopicPartition(eventsTopic, 0);
        this.tracer = tracer;
        this.settleTimeout = settleTimeout;
        this.producer = new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrap,
                        ProducerConfig.CLIENT_ID_CONFIG,
                        clientId + "-audit-events",
                        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                        true,
                        ProducerConfig.ACKS_CONFIG,
                        "all",
                        ProducerConfig.LINGER_MS_CONFIG,
                        0,
                        ProducerConfig.COMPRESSION_TYPE_CONFIG,
                        "lz4",
                        ProducerConfig.MAX_REQUEST_SIZE_CONFIG,
                        2 * 1024 * 1024,
                        // The writer's transaction (and the publishers' lock) waits for the acknowledgement: bounded.
                        ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
                        10_000,
                        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
                        (int) DELIVERY_TIMEOUT.toMillis()),
                new StringSerializer(),
                new ByteArraySerializer());
        this.reader = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrap,
                        ConsumerConfig.CLIENT_ID_CONFIG,
                        clientId + "-audit-events-reader",
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        false,
                        // Everything written, committed or not: a batch of this publisher's is never in a transaction.
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        "read_uncommitted",
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                        "earliest"),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
        reader.assign(List.of(events));
    }

    /**
     * Publishes those of {@code sources} not published yet, inside {@code conn}'s open transaction (which it
     * locks the publisher row in and records the marks in), and waits for Kafka's acknowledgement. Call
     * {@link #committed} once the transaction has committed.
     *
     * @param sources the records the transaction stores, each partition's in offset order
     * @throws SQLException          when PostgreSQL fails
     * @throws IllegalStateException when Kafka does not acknowledge the batch or cannot be read
     */
    public Published publish(Connection conn, List<Source> sources) throws SQLException {
        long recorded;
        long[] stored;
        Long lastAttempt;
        try (PreparedStatement ps = conn.prepareStatement(LOCK);
                ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                throw new IllegalStateException("audit_event_publisher has no row (migration V18)");
            }
            recorded = rs.getLong(1);
            stored = marksOf(rs.getArray(2));
            lastAttempt = rs.getObject(3, Long.class);
        }
        // Taken under the lock: attempts are numbered in the order publishers hold it.
        long attempt;
        try (PreparedStatement ps = conn.prepareStatement(ATTEMPT);
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            attempt = rs.getLong(1);
        }
        boolean settled = true; // nothing of this attempt is on its way until a send begins
        try {
            long[] marks = stored.clone();
            long lastBatch = recorded;
            if (lastAttempt == null || attempt != lastAttempt + 1) {
                Found found = settle(recorded, marks, missing(lastAttempt, attempt));
                lastBatch = Math.max(lastBatch, found.lastBatch());
                marks = found.marks();
            }
            List<Source> fresh = new ArrayList<>();
            for (Source source : sources) {
                if (source.offset() >= mark(marks, source.partition())) {
                    fresh.add(source);
                    marks = raise(marks, source.partition(), source.offset() + 1);
                }
            }
            if (!fresh.isEmpty()) {
                settled = false;
                lastBatch = send(attempt, fresh);
                settled = true; // every batch acknowledged
                trace(fresh);
            }
            try (PreparedStatement ps = conn.prepareStatement(RECORD)) {
                ps.setLong(1, lastBatch);
                ps.setArray(
                        2,
                        conn.createArrayOf(
                                "bigint", Arrays.stream(marks).boxed().toArray()));
                ps.setLong(3, attempt);
                ps.executeUpdate();
            }
            return new Published(attempt);
        } finally {
            if (settled) {
                settledOwn.add(attempt); // until its commit, should it never commit
            }
        }
    }

    /** The transaction that {@code published} ran in has committed. */
    public void committed(Published published) {
        settledOwn.removeIf(attempt -> attempt <= published.attempt());
    }

    /** The attempts between the last committed one and {@code attempt} that someone may still have batches of. */
    private Set<Long> missing(Long lastAttempt, long attempt) {
        Set<Long> out = new HashSet<>();
        if (lastAttempt != null) {
            for (long a = lastAttempt + 1; a < attempt; a++) {
                if (!settledOwn.contains(a)) {
                    out.add(a);
                }
            }
        }
        return out;
    }

    /**
     * Reads the topic from after {@code recorded} to its end, raising {@code marks} past every batch there, and then
     * on as the end moves until every batch of each {@code pending} attempt has arrived or {@link #settleTimeout}
     * has passed (then the attempt counts as one whose other batches were never sent: none can still arrive).
     */
    private Found settle(long recorded, long[] marks, Set<Long> pending) {
        long deadline = System.nanoTime() + settleTimeout.toNanos();
        Map<Long, Arrived> arrived = new HashMap<>();
        Found found = new Found(marks, -1);
        long from = recorded + 1;
        while (true) {
            long end =
                    reader.endOffsets(List.of(events), Duration.ofSeconds(10)).get(events);
            if (end > from) {
                found = readMarks(from, end, found, arrived);
                from = end;
            }
            pending.removeIf(a -> arrived.containsKey(a) && arrived.get(a).complete());
            if (pending.isEmpty()) {
                return found;
            }
            if (System.nanoTime() > deadline) {
                LOG.warning("audit events: attempt(s) " + new TreeSet<>(pending) + " did not commit and not all their"
                        + " batches arrived within " + settleTimeout.toSeconds() + " s; taken as never sent");
                return found;
            }
            sleep(Duration.ofMillis(100));
        }
    }

    /** The batches of one attempt found on the topic: how many it sent, and the places of those that arrived. */
    private record Arrived(long count, Set<Integer> indexes) {
        boolean complete() {
            return indexes.size() >= count;
        }
    }

    /**
     * Sends {@code sources} as batches (each at most {@link AuditBatch#MAX_ENTRIES} entries or about
     * {@link AuditBatch#MAX_BYTES}), each naming {@code attempt}, its place among the attempt's batches and the last
     * audit offset of each partition it holds, and answers the offset of the last batch once every batch is
     * acknowledged. A batch names its own entries only: should a later one never arrive, the entries it held are not
     * taken for published.
     */
    private long send(long attempt, List<Source> sources) {
        List<List<Source>> batches = new ArrayList<>();
        List<Source> batch = new ArrayList<>();
        int bytes = 0;
        for (Source source : sources) {
            int size = source.entry().encodedSize();
            if (!batch.isEmpty() && (batch.size() == AuditBatch.MAX_ENTRIES || bytes + size > AuditBatch.MAX_BYTES)) {
                batches.add(batch);
                batch = new ArrayList<>();
                bytes = 0;
            }
            batch.add(source);
            bytes += size;
        }
        batches.add(batch);
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        for (int i = 0; i < batches.size(); i++) {
            sent.add(sendBatch(batches.get(i), attemptHeader(attempt, i, batches.size())));
        }
        long offset = -1;
        try {
            for (Future<RecordMetadata> ack : sent) {
                offset = Math.max(offset, ack.get().offset());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while publishing audit events", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(
                    "audit events not acknowledged by Kafka: " + e.getCause().getMessage(), e.getCause());
        }
        return offset;
    }

    private Future<RecordMetadata> sendBatch(List<Source> batch, byte[] attempt) {
        Map<Integer, Long> last = new TreeMap<>();
        List<AuditBatch.Entry> entries = new ArrayList<>(batch.size());
        List<AuditBatchRows.Key> rows = new ArrayList<>(batch.size());
        for (Source source : batch) {
            last.merge(source.partition(), source.offset(), Math::max);
            entries.add(source.entry());
            if (source.row() != null) {
                rows.add(source.row());
            }
        }
        RecordHeaders headers = new RecordHeaders();
        headers.add(AuditBatch.header());
        headers.add(new RecordHeader(SOURCES_HEADER, sourcesHeader(last)));
        headers.add(new RecordHeader(ATTEMPT_HEADER, attempt));
        if (rows.size() == entries.size()) {
            headers.add(AuditBatchRows.header(rows));
        }
        return producer.send(new ProducerRecord<>(
                events.topic(), events.partition(), null, null, AuditBatch.encode(entries), headers));
    }

    /** What reading the topic found: the marks raised by the batches there, and the offset of the last, or -1. */
    private record Found(long[] marks, long lastBatch) {}

    /**
     * Reads the topic from {@code from} to {@code end}, raising the marks of {@code found} past every batch there,
     * and notes in {@code arrived} which batches of each attempt are there.
     */
    private Found readMarks(long from, long end, Found found, Map<Long, Arrived> arrived) {
        reader.seek(events, from);
        long[] marks = found.marks();
        long lastBatch = found.lastBatch();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (reader.position(events, Duration.ofSeconds(10)) < end) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "could not read " + events + " up to " + end + " to learn which audit events are published");
            }
            for (ConsumerRecord<byte[], byte[]> record : reader.poll(Duration.ofMillis(200))) {
                Header header = record.headers().lastHeader(SOURCES_HEADER);
                if (record.offset() >= end || header == null || header.value() == null) {
                    continue;
                }
                Map<Integer, Long> named = parseSources(header.value());
                for (Map.Entry<Integer, Long> e : named.entrySet()) {
                    marks = raise(marks, e.getKey(), e.getValue() + 1);
                }
                if (!named.isEmpty()) {
                    lastBatch = record.offset();
                }
                Header attempt = record.headers().lastHeader(ATTEMPT_HEADER);
                long[] nik = attempt == null || attempt.value() == null ? null : parseAttempt(attempt.value());
                if (nik != null) {
                    arrived.computeIfAbsent(nik[0], a -> new Arrived(nik[2], new HashSet<>()))
                            .indexes()
                            .add((int) nik[1]);
                }
            }
        }
        if (lastBatch > found.lastBatch()) {
            LOG.info("audit events: read " + events + " from " + from + " to " + end + "; the batches there, up to "
                    + lastBatch + ", are not published again");
        }
        return new Found(marks, lastBatch);
    }

    static byte[] attemptHeader(long attempt, int index, int count) {
        return (attempt + "/" + index + "/" + count).getBytes(StandardCharsets.US_ASCII);
    }

    /** {@code [attempt, index, count]} of a {@value #ATTEMPT_HEADER} header; null when it is not well-formed. */
    static long[] parseAttempt(byte[] value) {
        String[] parts = new String(value, StandardCharsets.US_ASCII).split("/");
        try {
            if (parts.length == 3) {
                long[] out = {Long.parseLong(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2])};
                if (out[0] > 0 && out[1] >= 0 && out[2] > out[1] && out[2] <= Integer.MAX_VALUE) {
                    return out;
                }
            }
        } catch (NumberFormatException e) {
            // below
        }
        LOG.warning("ignoring a malformed " + ATTEMPT_HEADER + " header");
        return null;
    }

    private static void sleep(Duration pause) {
        try {
            Thread.sleep(pause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for an earlier attempt's audit events", e);
        }
    }

    /** The offset after the last entry published of {@code partition} (0: none). */
    private static long mark(long[] marks, int partition) {
        return partition < marks.length ? marks[partition] : 0;
    }

    /** {@code marks} with {@code partition}'s mark at least {@code next} (a copy when it must grow). */
    private static long[] raise(long[] marks, int partition, long next) {
        long[] out = partition < marks.length ? marks : Arrays.copyOf(marks, partition + 1);
        out[partition] = Math.max(out[partition], next);
        return out;
    }

    /** The marks column as an array indexed by partition. */
    private static long[] marksOf(Array column) throws SQLException {
        Object[] values = (Object[]) column.getArray();
        long[] out = new long[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = values[i] == null ? 0 : ((Number) values[i]).longValue();
        }
        return out;
    }

    static byte[] sourcesHeader(Map<Integer, Long> last) {
        StringBuilder out = new StringBuilder();
        last.forEach((partition, offset) -> out.append(out.isEmpty() ? "" : ",")
                .append(partition)
                .append('=')
                .append(offset));
        return out.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** The marks a {@value #SOURCES_HEADER} header names; empty when it is not well-formed. */
    static Map<Integer, Long> parseSources(byte[] value) {
        Map<Integer, Long> out = new HashMap<>();
        try {
            for (String pair : new String(value, StandardCharsets.US_ASCII).split(",")) {
                int eq = pair.indexOf('=');
                int partition = Integer.parseInt(pair.substring(0, eq));
                long offset = Long.parseLong(pair.substring(eq + 1));
                if (partition < 0 || offset < 0) {
                    return Map.of();
                }
                out.put(partition, offset);
            }
        } catch (RuntimeException e) {
            LOG.warning("ignoring a malformed " + SOURCES_HEADER + " header");
            return Map.of();
        }
        return out;
    }

    private void trace(List<Source> published) {
        for (Source source : published) {
            if (!source.entry().traceparent().isEmpty()) {
                tracer.spanBuilder("audit event publish")
                        .setSpanKind(SpanKind.PRODUCER)
                        .setParent(TraceHeaders.extract(source.entry().traceparent()))
                        .startSpan()
                        .end();
            }
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
        reader.close(Duration.ofSeconds(5));
    }
}
