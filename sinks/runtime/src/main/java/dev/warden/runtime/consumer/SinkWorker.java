package dev.warden.runtime.consumer;

import dev.warden.pipeline.contract.AuditBatch;
import dev.warden.pipeline.contract.TraceHeaders;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The runtime every sink shares: consume a topic in a consumer group, hand each polled batch to a
 * {@link BatchWriter} that stores rows and offsets atomically, and on (re)assignment seek to the offsets the
 * writer stored — so each record is written exactly once however the worker dies. Failed batches are
 * retried after a backoff, from the stored offsets. A batch the store refuses for its data
 * ({@link PoisonedBatchException}) is split in halves, each stored on its own, until the culprit is alone; that
 * record is dead-lettered with the error ({@link DeadLetter}) together with the offset past it, and the worker
 * goes on: one bad value never stops a partition, and everything else stays exactly once. Runs on its own
 * thread, plus a store thread: while one batch is being stored, the next is polled and
 * {@linkplain BatchWriter#prepare prepared}; it is stored only once the previous one is durable, so batches are
 * stored one at a time and in order. {@link #health()} says whether it keeps failing or falls behind.
 * {@link #close()} stops it.
 *
 * <p>An idle worker dozes ({@link Doze}): after {@link Doze#AFTER} with nothing polled and nothing being stored it
 * pauses its partitions and arms an alarm at its positions; the first records past them are stored at once (without
 * the batch wait). A doze also ends after {@link Doze#CAP} (the worker then samples its lag), and on a rebalance or
 * an operator's control, which a dozing worker looks at once a {@link Doze#TICK}.
 */
public final class SinkWorker implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(SinkWorker.class.getName());

    private final Tracer tracer;
    private final String name;
    private final ConsumerLoop<String, byte[]> loop;
    private final String topic;
    private final String bootstrap;
    /** The consumer's client id (its group's name); the doze's alarm's is this and {@code -alarm}. */
    private final String clientId;
    /** Most records per batch (the doze's alarm hands over as many at most). */
    private final int maxPoll;
    /** {@code fetch.min.bytes} of background consumers (sinks, pipeline): fetch in batches, not per record. */
    public static final int BATCH_FETCH_MIN_BYTES = 64 * 1024;
    /** {@code fetch.max.wait.ms} of background consumers: the most a record waits for a batch to fill. */
    public static final int BATCH_FETCH_MAX_WAIT_MS = 100;

    private final BatchWriter writer;
    private final SinkCounters counters;
    private final SinkHealth health;
    private volatile boolean closing;
    private volatile boolean assigned;
    /** The loop's consumer; used on the loop's thread only (set by the handler's start). */
    private Consumer<String, byte[]> consumer;

    private final ExecutorService storer;
    /** The batch on the store thread; touched by the polling thread only. */
    private InFlight inFlight;
    /** Failed stores in a row (0 after a success); the polling thread only. */
    private int consecutiveFailures;
    /** What an operator asked (pause, replay); {@link SinkControl#NONE} unless {@link #controlledBy} set one. */
    private volatile SinkControl control = SinkControl.NONE;
    /** Whether the assignment is paused by the control; the polling thread only. */
    private boolean paused;
    /** The replay generation applied (-1: not yet read, so that a worker never replays at its start). */
    private long replayGeneration = -1;
    /** Idle this long, the worker dozes (null: never); set before {@link #start}. */
    private Duration dozeAfter = Doze.AFTER;
    /** The longest doze; set before {@link #start}. */
    private Duration dozeCap = Doze.CAP;
    /** The worker's doze; made by {@link #start}, used by the polling thread. */
    private volatile Doze doze;
    /** The operator's control when the doze began: a change ends it. */
    private SinkControl.State dozedUnder;

    /**
     * @param name    the sink's name (consumer group {@code groupPrefix + name})
     * @param maxPoll most records per batch
     */
    public SinkWorker(
            String name,
            String bootstrap,
            String groupPrefix,
            String topic,
            int maxPoll,
            BatchWriter writer,
            SinkCounters counters) {
        this(
                name,
                bootstrap,
                groupPrefix,
                topic,
                maxPoll,
                writer,
                counters,
                OpenTelemetry.noop().getTracer("warden"));
    }

    /**
     * As the other constructor, with a span {@code <name> store} for each stored record that carries a trace
     * context, from the batch's hand-over to the store until its commit.
     */
    public SinkWorker(
            String name,
            String bootstrap,
            String groupPrefix,
            String topic,
            int maxPoll,
            BatchWriter writer,
            SinkCounters counters,
            Tracer tracer) {
        this(
                name,
                bootstrap,
                groupPrefix,
                topic,
                maxPoll,
                writer,
                counters,
                tracer,
                GroupWaits.fetching(Duration.ofMillis(BATCH_FETCH_MAX_WAIT_MS)));
    }

    /**
     * As the other constructors, with {@code waits}' fetch wait as the most a record waits for its batch to fill (the
     * audit writer, which publishes the {@code audit} stream events, batches for as long as they may wait) and its
     * retry backoff as the consumer's.
     */
    public SinkWorker(
            String name,
            String bootstrap,
            String groupPrefix,
            String topic,
            int maxPoll,
            BatchWriter writer,
            SinkCounters counters,
            Tracer tracer,
            GroupWaits waits) {
        this.tracer = tracer;
        this.name = name;
        this.topic = topic;
        this.bootstrap = bootstrap;
        this.clientId = groupPrefix + name;
        this.maxPoll = maxPoll;
        this.writer = writer;
        this.counters = counters;
        this.health = new SinkHealth(name);
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, clientId);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPoll);
        // Batched fetches: under load the broker answers once 64 KiB are ready instead of once per produce
        // batch, which is most of the broker's and this consumer's per-record cost; when idle, the fetch wait at most.
        p.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, BATCH_FETCH_MIN_BYTES);
        waits.applyTo(p);
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 4 * 1024 * 1024);
        this.loop = new ConsumerLoop<>(
                "warden-sink-" + name,
                new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer()),
                Duration.ofMillis(200),
                new Store());
        this.storer = Executors.newSingleThreadExecutor(Thread.ofPlatform()
                .name("warden-sink-" + name + "-store")
                .daemon()
                .factory());
    }

    /** Pauses and replays as {@code control} says (set before {@link #start}). */
    public SinkWorker controlledBy(SinkControl control) {
        this.control = control;
        return this;
    }

    /**
     * Dozes after {@code after} idle, for {@code cap} at most (set before {@link #start}); a null {@code after}
     * never dozes.
     */
    public SinkWorker dozing(Duration after, Duration cap) {
        this.dozeAfter = after;
        this.dozeCap = cap;
        return this;
    }

    /** Whether the worker dozes now: its fetches paused, waiting for a record to ring its alarm. */
    public boolean isDozing() {
        Doze d = doze;
        return d != null && d.isDozing();
    }

    /** Starts consuming. */
    public void start() {
        doze = new Doze("warden-sink-" + name + "-alarm", clientId + "-alarm", bootstrap, maxPoll, dozeAfter, dozeCap);
        loop.start();
    }

    /** True once the worker holds at least one partition (or has been assigned none after joining). */
    public boolean isAssigned() {
        return assigned;
    }

    /** The sink's name. */
    public String name() {
        return name;
    }

    /** Failures, lag and dead letters of this sink. */
    public SinkHealth health() {
        return health;
    }

    /** The worker's side of the loop: prepare each batch while the previous one stores, then store it. */
    private final class Store implements ConsumerLoop.Handler<String, byte[]> {
        @Override
        public void start(Consumer<String, byte[]> kafka) {
            consumer = kafka;
            kafka.subscribe(List.of(topic), new SeekToStored());
        }

        @Override
        public Duration nextPollTimeout(Duration configured) {
            return doze.pollTimeout(configured);
        }

        @Override
        public void handle(ConsumerRecords<String, byte[]> polled, Consumer<String, byte[]> kafka) {
            if (!doze.isDozing() || !polled.isEmpty()) {
                doze.wake(kafka); // if dozing: a rebalance handed it partitions the alarm does not watch
                take(polled, false, kafka);
                return;
            }
            ConsumerRecords<String, byte[]> rung =
                    control.state().equals(dozedUnder) ? doze.await() : ConsumerRecords.empty();
            if (rung == null) {
                return; // dozing on
            }
            doze.wake(kafka); // (the operator's control re-pauses what it holds)
            take(rung, true, kafka); // read by the alarm from this worker's positions: stored as if polled
        }

        /**
         * Stores {@code polled} (after the batch being stored); {@code handedOver} when the alarm read them, so
         * that the consumer's positions move past them once they are on their way to the store.
         */
        private void take(ConsumerRecords<String, byte[]> polled, boolean handedOver, Consumer<String, byte[]> kafka) {
            if (!obeyControl(kafka)) {
                return; // paused, or just replayed: whatever was polled is read again from the stored offsets
            }
            health.sampleLag(kafka);
            if (polled.isEmpty()) {
                finishInFlight(); // nothing to overlap it with: settle the batch being stored now
                dozeIfIdle(kafka);
                return;
            }
            doze.active();
            BatchWriter.PreparedBatch batch;
            try {
                batch = prepare(polled);
            } catch (RuntimeException e) {
                if (finishInFlight()) {
                    failed(polled.count(), e);
                }
                return;
            }
            health.pending(firstTimestamp(polled));
            // Prepared while the previous batch was being stored; store it once that one is durable. If that
            // one failed, the consumer has been rewound to the stored offsets and this batch is read again.
            if (finishInFlight()) {
                List<ConsumerRecord<String, byte[]>> records = recordsOf(polled);
                inFlight = new InFlight(
                        storer.submit(() -> storeIsolating(batch, records)), records, System.nanoTime(), Instant.now());
                if (handedOver) {
                    nextOffsets(records).forEach(kafka::seek); // fetch on from past them (a failure rewinds)
                }
            }
        }

        @Override
        public void stop(Consumer<String, byte[]> kafka) {
            try {
                finishInFlight();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "sink " + name + ": last batch not settled: " + e.getMessage());
            }
            storer.shutdown();
            doze.close();
        }
    }

    /**
     * Dozes when nothing was polled nor stored for {@link #dozeAfter} (called once the batch being stored has
     * settled). Not while the operator holds the sink paused (that pause is the operator's to lift).
     */
    private void dozeIfIdle(Consumer<String, byte[]> kafka) {
        if (!paused && doze.beginIfIdle(kafka)) {
            dozedUnder = control.state();
        }
    }

    /**
     * Applies the operator's control: pauses or resumes the assignment, and replays from a time. False when the
     * polled batch must not be handled (paused, or the position just moved).
     */
    private boolean obeyControl(Consumer<String, byte[]> kafka) {
        SinkControl.State state = control.state();
        if (replayGeneration < 0) {
            replayGeneration = state.replayGeneration();
        }
        if (state.paused()) {
            if (!paused) {
                finishInFlight();
                paused = true;
                LOG.info("sink " + name + " paused by the administrator");
            }
            kafka.pause(kafka.assignment()); // newly assigned partitions too
            health.paused(true);
            return false;
        }
        boolean moved = false;
        if (paused) {
            paused = false;
            health.paused(false);
            finishInFlight();
            kafka.resume(kafka.paused());
            rewindUntilDone(kafka.assignment());
            LOG.info("sink " + name + " resumed");
            moved = true;
        }
        if (state.replayGeneration() != replayGeneration && state.replayFrom().isPresent()) {
            finishInFlight();
            replay(kafka, state.replayFrom().get());
            replayGeneration = state.replayGeneration();
            moved = true;
        }
        return !moved;
    }

    /** Moves the assignment's stored offsets back (or forward) to the first record at or after {@code from}. */
    private void replay(Consumer<String, byte[]> kafka, Instant from) {
        Set<TopicPartition> partitions = kafka.assignment();
        if (partitions.isEmpty()) {
            return;
        }
        Map<TopicPartition, Long> times = new HashMap<>();
        partitions.forEach(tp -> times.put(tp, from.toEpochMilli()));
        Map<TopicPartition, OffsetAndTimestamp> found = kafka.offsetsForTimes(times);
        Map<TopicPartition, Long> ends = kafka.endOffsets(partitions);
        Map<TopicPartition, Long> next = new HashMap<>();
        for (TopicPartition tp : partitions) {
            OffsetAndTimestamp at = found.get(tp);
            next.put(tp, at == null ? ends.get(tp) : at.offset());
        }
        writer.resetOffsets(next);
        next.forEach(kafka::seek);
        health.pending(0);
        LOG.info("sink " + name + " replays from " + from + ": " + next);
    }

    /** The timestamp of the earliest record of {@code polled} (ms), or 0. */
    private static long firstTimestamp(ConsumerRecords<String, byte[]> polled) {
        long first = Long.MAX_VALUE;
        for (ConsumerRecord<String, byte[]> record : polled) {
            first = Math.min(first, record.timestamp());
        }
        return first == Long.MAX_VALUE ? 0 : first;
    }

    /** Hands the polled records and the next offset of each partition to the writer's first half. */
    private BatchWriter.PreparedBatch prepare(ConsumerRecords<String, byte[]> polled) {
        List<ConsumerRecord<String, byte[]>> records = recordsOf(polled);
        return writer.prepare(records, nextOffsets(records));
    }

    private static List<ConsumerRecord<String, byte[]>> recordsOf(ConsumerRecords<String, byte[]> polled) {
        List<ConsumerRecord<String, byte[]>> records = new ArrayList<>(polled.count());
        polled.forEach(records::add);
        return records;
    }

    /** The offset after the last of {@code records} in each of their partitions (the position past them). */
    public static Map<TopicPartition, Long> nextOffsets(Iterable<ConsumerRecord<String, byte[]>> records) {
        Map<TopicPartition, Long> next = new HashMap<>();
        for (ConsumerRecord<String, byte[]> record : records) {
            next.merge(new TopicPartition(record.topic(), record.partition()), record.offset() + 1, Math::max);
        }
        return next;
    }

    /** Store thread: stores a prepared batch; if the store refuses its data, isolates the culprit(s). */
    private BatchWriter.WriteResult storeIsolating(
            BatchWriter.PreparedBatch batch, List<ConsumerRecord<String, byte[]>> records) {
        try {
            return batch.store();
        } catch (PoisonedBatchException e) {
            LOG.warning("sink " + name + ": a batch of " + records.size() + " holds a record the store refuses ("
                    + e.getMessage() + "); isolating it");
            return isolate(records, e);
        }
    }

    /**
     * Stores {@code records} in halves, recursively, until a refused record is alone, and dead-letters it.
     * Halves are stored in order with their own offsets, so progress survives a crash mid-way; a transient
     * failure here ends the isolation and the worker retries from the stored offsets.
     */
    private BatchWriter.WriteResult isolate(
            List<ConsumerRecord<String, byte[]>> records, PoisonedBatchException cause) {
        if (records.size() == 1) {
            ConsumerRecord<String, byte[]> record = records.getFirst();
            writer.deadLetter(DeadLetter.of(name, record, cause.getMessage()), nextOffsets(records));
            LOG.warning("sink " + name + ": dead-lettered " + record.topic() + "-" + record.partition() + "@"
                    + record.offset() + ": " + cause.getMessage());
            return new BatchWriter.WriteResult(0, 1);
        }
        int half = records.size() / 2;
        BatchWriter.WriteResult result = new BatchWriter.WriteResult(0, 0);
        for (List<ConsumerRecord<String, byte[]>> part :
                List.of(records.subList(0, half), records.subList(half, records.size()))) {
            try {
                result = result.plus(writer.prepare(part, nextOffsets(part)).store());
            } catch (PoisonedBatchException e) {
                result = result.plus(isolate(part, e));
            }
        }
        return result;
    }

    /**
     * Waits for the batch being stored, if any. True when it was stored (or there was none); false when it
     * failed, after counting it and rewinding the consumer to the stored offsets.
     */
    private boolean finishInFlight() {
        InFlight pending = inFlight;
        if (pending == null) {
            return true;
        }
        inFlight = null;
        BatchWriter.WriteResult result;
        try {
            result = pending.result().get();
        } catch (ExecutionException e) {
            failed(pending.size(), e.getCause());
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        consecutiveFailures = 0;
        health.stored(pending.size(), System.nanoTime() - pending.submittedNanos());
        health.delivered();
        traceStored(pending);
        health.deadLettered(result.dropped());
        counters.written(result.written());
        counters.dropped(result.dropped());
        try {
            writer.afterCommit(result);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "sink " + name + " post-commit step failed", e);
        }
        return true;
    }

    private void failed(int records, Throwable e) {
        counters.failed(records);
        health.failed(e.getMessage());
        consecutiveFailures++;
        Duration delay = writer.retryDelay(e, consecutiveFailures);
        LOG.warning("sink " + name + " failed to write a batch of " + records + " (" + consecutiveFailures
                + " in a row); retrying from stored offsets in " + delay.toMillis() + " ms: " + e.getMessage());
        rewindUntilDone(consumer.assignment());
        pause(delay);
    }

    /**
     * A span per stored record (or entry of an audit batch) that carries a trace context, from the hand-over to
     * the store until now.
     */
    private void traceStored(InFlight batch) {
        for (ConsumerRecord<String, byte[]> record : batch.records()) {
            if (TraceHeaders.present(record.headers())) {
                traceStored(batch, TraceHeaders.extract(record.headers()));
            } else if (AuditBatch.isBatch(record.headers())) {
                try {
                    for (String traceparent : AuditBatch.traceparents(record.value())) {
                        if (!traceparent.isEmpty()) {
                            traceStored(batch, TraceHeaders.extract(traceparent));
                        }
                    }
                } catch (IllegalArgumentException e) {
                    // Not a batch after all: the writer has dead-lettered it; nothing to trace.
                }
            }
        }
    }

    private void traceStored(InFlight batch, Context parent) {
        tracer.spanBuilder(name + " store")
                .setSpanKind(SpanKind.CONSUMER)
                .setParent(parent)
                .setStartTimestamp(batch.submittedAt())
                .setAttribute("warden.sink", name)
                .setAttribute("warden.batch.records", batch.size())
                .startSpan()
                .end();
    }

    /** The batch on the store thread, its records and when it was handed over. */
    private record InFlight(
            Future<BatchWriter.WriteResult> result,
            List<ConsumerRecord<String, byte[]>> records,
            long submittedNanos,
            Instant submittedAt) {
        int size() {
            return records.size();
        }
    }

    /**
     * Seeks to the stored offsets, retrying while the store cannot say them: moving on from anywhere else
     * could skip a batch that was never stored.
     */
    private void rewindUntilDone(Collection<TopicPartition> partitions) {
        while (!closing) {
            try {
                rewind(partitions);
                return;
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "sink " + name + " cannot read its stored offsets; retrying: " + e.getMessage());
                pause(Duration.ofSeconds(1));
            }
        }
    }

    private void rewind(Collection<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            return;
        }
        Map<TopicPartition, Long> stored = writer.storedOffsets(partitions);
        List<TopicPartition> fresh = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            Long offset = stored.get(tp);
            if (offset == null) {
                fresh.add(tp);
            } else {
                consumer.seek(tp, offset);
            }
        }
        if (!fresh.isEmpty()) {
            consumer.seekToBeginning(fresh);
        }
    }

    private static void pause(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private final class SeekToStored implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            doze.wake(consumer); // a dozing worker's alarm watches the old assignment; fetch the new one
            rewindUntilDone(partitions);
            assigned = !closing;
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            // Every stored batch stored its offsets too; only the batch being stored must end before the
            // partitions go (the next owner reads the stored offsets).
            finishInFlight();
        }
    }

    @Override
    public void close() {
        closing = true;
        Doze d = doze;
        if (d != null) {
            d.release(); // a dozing loop waits on its alarm, which the loop's close does not wake
        }
        loop.close();
    }
}
