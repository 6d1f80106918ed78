package dev.warden.pipeline.mirror;

import dev.warden.authorizer.tracing.TraceHeaders;
import dev.warden.pipeline.contract.AuditBatch;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The audit mirror: copies every entry of {@code warden.audit} onto {@code warden.events} as an {@code audit}
 * event, exactly once, in {@link AuditBatch}es: the entries read since the last commit, of every audit partition,
 * become one record (more when they exceed {@link AuditBatch#MAX_ENTRIES} or {@link AuditBatch#MAX_BYTES}). It
 * reads committed entries only, and one transaction holds both the batches and the consumer group's offsets past
 * their entries; it commits {@code commitInterval} after the first entry read since the last commit. Unless a batch
 * fills before then, the transaction begins at the commit, so it holds back the topic's other events (every reader
 * reads committed records) only while the commit runs. Entries are copied as bytes, never decoded here: their
 * readers decode them, and only when someone reads them (docs/events.md). The consumer group's generation fences a mirror that lost its
 * partitions (KIP-447), so two instances never both commit the same entries.
 */
public final class AuditMirror implements AutoCloseable {
    /** The state of the mirror, for health. */
    public enum State { STARTING, RUNNING, FAILED, STOPPED }

    private static final Logger LOG = Logger.getLogger(AuditMirror.class.getName());
    private static final int FETCH_MIN_BYTES = 32 * 1024;
    private static final int BATCH_MS = 5;

    private final String eventsTopic;
    private final Duration commitInterval;
    private final Tracer tracer;
    private final KafkaConsumer<String, byte[]> consumer;
    private final KafkaProducer<String, byte[]> producer;
    private final Map<TopicPartition, OffsetAndMetadata> pending = new HashMap<>();
    private final Thread thread;
    private volatile State state = State.STARTING;
    private volatile boolean running = true;
    /** Entries read and not yet sent, of every partition, each partition's in its order. */
    private List<AuditBatch.Entry> buffered = new ArrayList<>();
    private int bufferedBytes;
    /** When the oldest record read since the last commit was read ({@link System#nanoTime()}), or -1. */
    private long firstRead = -1;
    private boolean inTransaction;

    /**
     * @param group           the consumer group (its committed offsets are where the mirror resumes)
     * @param transactionalId the producer's transactional id, stable for this instance
     */
    public AuditMirror(String bootstrap, String auditTopic, String eventsTopic, String group, String transactionalId,
                       String clientId, Duration commitInterval, Tracer tracer) {
        this.eventsTopic = eventsTopic;
        this.commitInterval = commitInterval;
        this.tracer = tracer;
        this.consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, group,
                ConsumerConfig.CLIENT_ID_CONFIG, clientId + "-consumer",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                // Fetched in batches of at most 5 ms: fewer, larger batches for the same few milliseconds.
                ConsumerConfig.FETCH_MIN_BYTES_CONFIG, FETCH_MIN_BYTES,
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, BATCH_MS,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5_000), new StringDeserializer(), new ByteArrayDeserializer());
        this.producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.CLIENT_ID_CONFIG, clientId + "-producer",
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId,
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, BATCH_MS,
                ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4",
                ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 2 * 1024 * 1024), new StringSerializer(),
                new ByteArraySerializer());
        this.thread = Thread.ofPlatform().name("warden-audit-mirror").daemon().unstarted(() -> run(auditTopic));
    }

    /** Starts copying. */
    public AuditMirror start() {
        thread.start();
        return this;
    }

    /** Where the mirror stands: {@code FAILED} when it stopped on an error it cannot recover from. */
    public State state() {
        return state;
    }

    private void run(String auditTopic) {
        try {
            producer.initTransactions();
            consumer.subscribe(List.of(auditTopic), new CommitBeforeRevoke());
            state = State.RUNNING;
            while (running) {
                try {
                    read(consumer.poll(pollTimeout()));
                    if (firstRead >= 0 && System.nanoTime() - firstRead >= commitInterval.toNanos()) {
                        commit();
                    }
                } catch (ProducerFencedException e) {
                    throw e;
                } catch (KafkaException e) {
                    // The transaction failed (e.g. the group rebalanced under it): abort it and go back to the
                    // committed offsets, so nothing is lost and nothing written twice.
                    LOG.log(Level.WARNING, "audit mirror transaction aborted; resuming from committed offsets", e);
                    abortAndRewind();
                }
            }
            if (firstRead >= 0) {
                commit();
            }
            state = State.STOPPED;
        } catch (InterruptException e) {
            state = State.STOPPED;
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "audit mirror stopped", e);
            state = State.FAILED;
        } finally {
            closeClients();
        }
    }

    private Duration pollTimeout() {
        if (firstRead < 0) {
            return Duration.ofMillis(200);
        }
        long left = commitInterval.toNanos() - (System.nanoTime() - firstRead);
        return Duration.ofNanos(Math.max(0, left));
    }

    /**
     * Buffers the entries read until the next commit; a full batch is sent at once, inside the transaction (begun
     * if none is). Nothing sent is visible before the commit anyway (every reader reads committed records), so
     * waiting for it costs no latency, and a commit sends one batch where each poll of each partition sent one.
     */
    private void read(ConsumerRecords<String, byte[]> records) {
        if (records.isEmpty()) {
            return;
        }
        if (firstRead < 0) {
            firstRead = System.nanoTime();
        }
        for (TopicPartition partition : records.partitions()) {
            long next = -1;
            for (ConsumerRecord<String, byte[]> record : records.records(partition)) {
                next = record.offset() + 1;
                if (record.value() != null) {
                    buffer(entry(record));
                }
            }
            pending.put(partition, new OffsetAndMetadata(next));
        }
    }

    private void buffer(AuditBatch.Entry entry) {
        if (!buffered.isEmpty() && (buffered.size() == AuditBatch.MAX_ENTRIES
                || bufferedBytes + entry.encodedSize() > AuditBatch.MAX_BYTES)) {
            sendBuffered();
        }
        buffered.add(entry);
        bufferedBytes += entry.encodedSize();
    }

    private void sendBuffered() {
        beginIfNone();
        RecordHeaders headers = new RecordHeaders();
        headers.add(AuditBatch.header());
        producer.send(new ProducerRecord<>(eventsTopic, 0, null, null, AuditBatch.encode(buffered), headers));
        buffered = new ArrayList<>();
        bufferedBytes = 0;
    }

    /** The record as a batch entry, with the span {@code audit mirror} when it carries a trace. */
    private AuditBatch.Entry entry(ConsumerRecord<String, byte[]> record) {
        Header trace = record.headers().lastHeader("traceparent");
        if (trace == null || trace.value() == null) {
            return new AuditBatch.Entry(record.timestamp(), "", record.value());
        }
        Span span = TraceHeaders.span(tracer, "audit mirror", SpanKind.CONSUMER, record.headers());
        span.end();
        return new AuditBatch.Entry(record.timestamp(), new String(trace.value(), StandardCharsets.US_ASCII),
                record.value());
    }

    /** Sends what is buffered and commits it with the group's offsets past it, in one transaction. */
    private void commit() {
        if (!buffered.isEmpty()) {
            sendBuffered();
        }
        beginIfNone();
        if (!pending.isEmpty()) {
            producer.sendOffsetsToTransaction(Map.copyOf(pending), consumer.groupMetadata());
        }
        producer.commitTransaction();
        inTransaction = false;
        forget();
    }

    private void beginIfNone() {
        if (!inTransaction) {
            producer.beginTransaction();
            inTransaction = true;
        }
    }

    /** Aborts the open transaction, if any, and drops what was read since the last commit. */
    private void abort() {
        try {
            if (inTransaction) {
                producer.abortTransaction();
            }
        } finally {
            inTransaction = false;
            forget();
        }
    }

    /** Drops what was read since the last commit (it is read again from the committed offsets). */
    private void forget() {
        pending.clear();
        buffered = new ArrayList<>();
        bufferedBytes = 0;
        firstRead = -1;
    }

    private void abortAndRewind() {
        abort();
        Set<TopicPartition> assigned = consumer.assignment();
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(assigned);
        for (TopicPartition partition : assigned) {
            OffsetAndMetadata at = committed.get(partition);
            if (at != null) {
                consumer.seek(partition, at);
            } else {
                consumer.seekToBeginning(List.of(partition));
            }
        }
    }

    /** Commits the open transaction before partitions move to another instance, which resumes after it. */
    private final class CommitBeforeRevoke implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            if (firstRead >= 0) {
                commit();
            }
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            // The group moved on without us: whatever the open transaction holds must not commit.
            abort();
        }
    }

    private void closeClients() {
        try {
            consumer.close(Duration.ofSeconds(5));
        } catch (RuntimeException e) {
            LOG.fine("audit mirror consumer close: " + e.getMessage());
        }
        try {
            producer.close(Duration.ofSeconds(5));
        } catch (RuntimeException e) {
            LOG.fine("audit mirror producer close: " + e.getMessage());
        }
    }

    /** Stops after the current poll (at most 200 ms), committing what it copied; waits up to 15 s. */
    @Override
    public void close() {
        running = false;
        try {
            thread.join(Duration.ofSeconds(15));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
