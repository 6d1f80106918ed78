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
 * event, exactly once, in {@link AuditBatch}es: each poll's entries of one audit partition become one record
 * (up to {@link AuditBatch#MAX_ENTRIES} entries each). It reads committed entries only, and a transaction holds
 * both the batches it wrote and the consumer group's offsets past their entries; a transaction commits every
 * {@code commitInterval}. Entries are copied as bytes, never decoded here: their readers decode them, and only
 * when someone reads them (docs/events.md). The consumer group's generation fences a mirror that lost its
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
    private long transactionStarted = -1;

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
                    copy(consumer.poll(pollTimeout()));
                    if (transactionStarted >= 0 && System.nanoTime() - transactionStarted >= commitInterval.toNanos()) {
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
            if (transactionStarted >= 0) {
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
        if (transactionStarted < 0) {
            return Duration.ofMillis(200);
        }
        long left = commitInterval.toNanos() - (System.nanoTime() - transactionStarted);
        return Duration.ofNanos(Math.max(0, left));
    }

    /** Sends each partition's entries as batches, inside the open transaction (begun if none is). */
    private void copy(ConsumerRecords<String, byte[]> records) {
        if (records.isEmpty()) {
            return;
        }
        if (transactionStarted < 0) {
            producer.beginTransaction();
            transactionStarted = System.nanoTime();
        }
        for (TopicPartition partition : records.partitions()) {
            List<AuditBatch.Entry> batch = new ArrayList<>();
            int bytes = 0;
            long next = -1;
            for (ConsumerRecord<String, byte[]> record : records.records(partition)) {
                next = record.offset() + 1;
                if (record.value() == null) {
                    continue;
                }
                AuditBatch.Entry entry = entry(record);
                if (!batch.isEmpty() && (batch.size() == AuditBatch.MAX_ENTRIES
                        || bytes + entry.encodedSize() > AuditBatch.MAX_BYTES)) {
                    send(batch);
                    batch = new ArrayList<>();
                    bytes = 0;
                }
                batch.add(entry);
                bytes += entry.encodedSize();
            }
            if (!batch.isEmpty()) {
                send(batch);
            }
            pending.put(partition, new OffsetAndMetadata(next));
        }
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

    private void send(List<AuditBatch.Entry> batch) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(AuditBatch.header());
        producer.send(new ProducerRecord<>(eventsTopic, 0, null, null, AuditBatch.encode(batch), headers));
    }

    private void commit() {
        if (!pending.isEmpty()) {
            producer.sendOffsetsToTransaction(Map.copyOf(pending), consumer.groupMetadata());
        }
        producer.commitTransaction();
        pending.clear();
        transactionStarted = -1;
    }

    private void abortAndRewind() {
        try {
            if (transactionStarted >= 0) {
                producer.abortTransaction();
            }
        } finally {
            transactionStarted = -1;
            pending.clear();
        }
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
            if (transactionStarted >= 0) {
                commit();
            }
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            // The group moved on without us: whatever the open transaction holds must not commit.
            if (transactionStarted >= 0) {
                try {
                    producer.abortTransaction();
                } finally {
                    transactionStarted = -1;
                    pending.clear();
                }
            }
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
