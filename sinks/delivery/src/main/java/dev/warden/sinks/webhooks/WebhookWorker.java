package dev.warden.sinks.webhooks;

import dev.warden.pipeline.contract.AuditBatch;
import dev.warden.pipeline.contract.EventIds;
import dev.warden.pipeline.contract.SinkNames;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.pipeline.contract.StreamEventCodec;
import dev.warden.runtime.consumer.ConsumerLoop;
import dev.warden.runtime.consumer.DeadLetter;
import dev.warden.runtime.consumer.Doze;
import dev.warden.runtime.consumer.GroupWaits;
import dev.warden.runtime.consumer.SinkHealth;
import dev.warden.runtime.consumer.SinkWorker;
import dev.warden.runtime.outbound.TargetGuard;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The webhook sink: consumes {@code warden.events} in its own consumer group and hands every event to a
 * {@link WebhookDispatcher}. Delivery never blocks the API: it happens here, in the {@code sinks} role.
 *
 * <p>At least once: the worker commits an offset to Kafka only when every event before it is finished
 * (delivered, dropped, or its endpoint disabled or deleted). After a crash, a restart or a rebalance, the
 * unfinished events are delivered again; receivers deduplicate by {@code webhook-id}. The endpoint list is
 * read from the {@link WebhookDirectory} before each batch is dispatched (so an endpoint created before an
 * event was published receives it) and about once a second while idle and awake; if it cannot be read, the batch is
 * rewound and retried. Consumption pauses while more than {@value #MAX_IN_FLIGHT} events are unfinished.
 * Runs on its own thread; {@link #close()} stops it.
 *
 * <p>An idle worker dozes ({@link Doze}): after {@link Doze#AFTER} with nothing polled and every event finished and
 * committed, it stops its batched fetches and leaves an alarm at its positions; the first event past them is
 * dispatched at once, without the batch wait. A dozing worker does not read the endpoint list (it reads it before the
 * event that wakes it).
 */
public final class WebhookWorker implements AutoCloseable {
    /** The name of this sink in dead letters, health and metrics. */
    public static final String SINK = SinkNames.WEBHOOKS;
    /** Unfinished events beyond which consumption pauses (resumes at half). */
    static final int MAX_IN_FLIGHT = 10_000;

    private static final Logger LOG = Logger.getLogger(WebhookWorker.class.getName());
    private static final Duration IDLE_REFRESH = Duration.ofSeconds(1);
    private static final int FETCH_MIN_BYTES = 1024 * 1024;
    private static final int MAX_POLL = 500;

    private final ConsumerLoop<String, byte[]> loop;
    private final String topic;
    private final WebhookDirectory directory;
    private final WebhookDispatcher dispatcher;
    private final OffsetTracker tracker = new OffsetTracker();
    private final java.util.function.Consumer<List<DeadLetter>> deadLetters;
    private final SinkHealth health = new SinkHealth(SINK);
    private volatile boolean assigned;
    private long lastRefreshNanos;
    private boolean paused;
    private final Doze doze;

    /**
     * @param groupId     the consumer group, {@code <streams application prefix>webhooks}
     * @param waits       the most an event waits for its batch to fill ({@code fetch.max.wait.ms}; also how often
     *                    the idle worker asks the broker) and the consumer's retry backoff
     * @param deadLetters stores the events that cannot be decoded (at least once: offsets live in Kafka)
     */
    public WebhookWorker(
            String bootstrap,
            String groupId,
            String topic,
            GroupWaits waits,
            WebhookDirectory directory,
            WebhookOptions options,
            WebhookCounters counters,
            InstantSource clock,
            java.util.function.Consumer<List<DeadLetter>> deadLetters) {
        this.topic = topic;
        this.deadLetters = deadLetters;
        this.directory = directory;
        TargetGuard guard = TargetGuard.system(options.allowPrivateTargets());
        this.dispatcher = new WebhookDispatcher(
                directory,
                new HttpWebhookTransport(guard, options.timeout()),
                guard,
                options,
                counters,
                clock,
                Thread::sleep,
                Executors.newThreadPerTaskExecutor(
                        Thread.ofVirtual().name("warden-webhook-", 0).factory()));
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, groupId);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        // A new group starts at the beginning so that nothing published before it joined is missed; endpoints
        // only receive events from their creation on (WebhookEndpoint#accepts), so history is skipped cheaply.
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, MAX_POLL);
        // Up to 1 MiB or the fetch wait (100 ms by default) per fetch: each batch costs a read of the endpoint list
        // and a commit, so under thousands of (audit) events a second the worker takes about ten batches a second,
        // not one per 64 KiB.
        p.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, FETCH_MIN_BYTES);
        waits.applyTo(p);
        this.loop = new ConsumerLoop<>(
                "warden-sink-webhooks",
                new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer()),
                Duration.ofMillis(200),
                new Delivery());
        this.doze =
                new Doze("warden-sink-webhooks-alarm", groupId + "-alarm", bootstrap, MAX_POLL, Doze.AFTER, Doze.CAP);
        this.lastRefreshNanos = System.nanoTime() - IDLE_REFRESH.toNanos() - 1;
    }

    /** Starts consuming. */
    public void start() {
        loop.start();
    }

    /** True once the worker has joined its group (holding the partition or not), until it stops. */
    public boolean isAssigned() {
        return assigned;
    }

    /** Whether the worker dozes now: its fetches paused, waiting for an event to ring its alarm. */
    public boolean isDozing() {
        return doze.isDozing();
    }

    /** The worker's side of the loop: dispatch each batch, commit what is finished, pace consumption. */
    private final class Delivery implements ConsumerLoop.Handler<String, byte[]> {
        @Override
        public void start(Consumer<String, byte[]> consumer) {
            consumer.subscribe(List.of(topic), new Rebalance(consumer));
        }

        @Override
        public Duration nextPollTimeout(Duration configured) {
            return doze.pollTimeout(configured);
        }

        @Override
        public void handle(ConsumerRecords<String, byte[]> records, Consumer<String, byte[]> consumer) {
            if (!doze.isDozing() || !records.isEmpty()) {
                doze.wake(consumer); // if dozing: a rebalance handed it partitions the alarm does not watch
                deliver(records, false, consumer);
                return;
            }
            ConsumerRecords<String, byte[]> rung = doze.await();
            if (rung == null) {
                return; // dozing on
            }
            doze.wake(consumer);
            deliver(rung, true, consumer); // read by the alarm from this worker's positions: dispatched as if polled
        }

        @Override
        public void stop(Consumer<String, byte[]> consumer) {
            assigned = false;
            try {
                commitFinished(consumer);
            } catch (RuntimeException e) {
                LOG.fine("webhook sink could not commit on close: " + e.getMessage());
            }
            doze.close();
        }
    }

    /**
     * Dispatches a batch (after reading the endpoint list), commits what is finished and paces consumption; dozes
     * when nothing came for a while and nothing is left to finish. {@code handedOver} when the doze's alarm read the
     * batch: the consumer's positions then move past it once it is dispatched.
     */
    private void deliver(
            ConsumerRecords<String, byte[]> records, boolean handedOver, Consumer<String, byte[]> consumer) {
        health.sampleLag(consumer);
        if (!records.isEmpty() || refreshDue()) {
            if (!refresh()) {
                rewind(consumer, records);
                pause(Duration.ofSeconds(1));
                return;
            }
        }
        if (!records.isEmpty()) {
            doze.active();
        }
        records.forEach(this::dispatch);
        if (handedOver) {
            SinkWorker.nextOffsets(records).forEach(consumer::seek);
        }
        commitFinished(consumer);
        applyBackpressure(consumer);
        if (!paused && tracker.inFlight() == 0 && tracker.committable().isEmpty()) {
            doze.beginIfIdle(consumer);
        }
    }

    private boolean refreshDue() {
        return System.nanoTime() - lastRefreshNanos > IDLE_REFRESH.toNanos();
    }

    private boolean refresh() {
        try {
            dispatcher.refresh(directory.activeEndpoints());
            lastRefreshNanos = System.nanoTime();
            health.stored();
            return true;
        } catch (RuntimeException e) {
            LOG.warning("webhook sink cannot read the endpoint list; retrying: " + e.getMessage());
            health.failed("cannot read the endpoint list: " + e.getMessage());
            return false;
        }
    }

    private void dispatch(ConsumerRecord<String, byte[]> record) {
        WebhookDispatcher.Ticket ticket =
                tracker.track(new TopicPartition(record.topic(), record.partition()), record.offset());
        if (dispatcher.endpointCount() == 0) {
            ticket.finished(); // nobody to deliver to: not worth decoding (most events are audit events)
            return;
        }
        if (AuditBatch.isBatch(record.headers())) {
            dispatchBatch(record, ticket);
            return;
        }
        StreamEvent event;
        try {
            event = StreamEventCodec.decodeDraft(record.value()).at(record.offset());
        } catch (IllegalArgumentException e) {
            deadLetter(record, e);
            ticket.finished();
            return;
        }
        dispatcher.dispatch(event, ticket);
    }

    /**
     * Each entry of an audit batch as its own event ({@code webhook-id} {@code "<offset>.<index>"}); the record is
     * finished once all of them are. An entry that does not decode dead-letters the record, naming the entry; the
     * others are still delivered.
     */
    private void dispatchBatch(ConsumerRecord<String, byte[]> record, WebhookDispatcher.Ticket ticket) {
        List<AuditBatch.Entry> entries;
        try {
            entries = AuditBatch.decode(record.value());
        } catch (IllegalArgumentException e) {
            deadLetter(record, e);
            ticket.finished();
            return;
        }
        AtomicInteger left = new AtomicInteger(entries.size());
        WebhookDispatcher.Ticket each = new WebhookDispatcher.Ticket() {
            @Override
            public boolean abandoned() {
                return ticket.abandoned();
            }

            @Override
            public void finished() {
                if (left.decrementAndGet() == 0) {
                    ticket.finished();
                }
            }
        };
        for (int i = 0; i < entries.size(); i++) {
            StreamEvent event;
            try {
                event = AuditBatch.event(entries.get(i).value(), EventIds.id(EventIds.batchEntry(record.offset(), i)));
            } catch (IllegalArgumentException e) {
                deadLetter(record, new IllegalArgumentException("entry " + i + ": " + e.getMessage(), e));
                each.finished();
                continue;
            }
            dispatcher.dispatch(event, each);
        }
    }

    /**
     * An event no endpoint can ever be sent is kept with its error. If even that fails, the event is not
     * finished: it is read again after a restart rather than lost.
     */
    private void deadLetter(ConsumerRecord<String, byte[]> record, IllegalArgumentException e) {
        LOG.warning("webhook sink dead-letters a malformed event at offset " + record.offset() + ": " + e.getMessage());
        deadLetters.accept(List.of(DeadLetter.of(SINK, record, "undecodable stream event: " + e.getMessage())));
        health.deadLettered(1);
    }

    /** Dead letters and lag of this worker. */
    public SinkHealth health() {
        return health;
    }

    private void commitFinished(Consumer<String, byte[]> consumer) {
        Map<TopicPartition, OffsetAndMetadata> ready = tracker.committable();
        ready.keySet().retainAll(consumer.assignment());
        if (ready.isEmpty()) {
            return;
        }
        try {
            consumer.commitSync(ready);
            tracker.committed(ready);
        } catch (WakeupException e) {
            throw e;
        } catch (KafkaException e) {
            // Nothing is lost: the events stay uncommitted and are committed (or redelivered) later.
            LOG.fine("webhook sink commit failed; will retry: " + e.getMessage());
        }
    }

    private void applyBackpressure(Consumer<String, byte[]> consumer) {
        int inFlight = tracker.inFlight();
        if (!paused && inFlight >= MAX_IN_FLIGHT) {
            consumer.pause(consumer.assignment());
            paused = true;
            LOG.warning("webhook sink paused: " + inFlight + " events await delivery");
        } else if (paused && inFlight < MAX_IN_FLIGHT / 2) {
            consumer.resume(consumer.paused());
            paused = false;
        }
    }

    private static void rewind(Consumer<String, byte[]> consumer, ConsumerRecords<String, byte[]> records) {
        Map<TopicPartition, Long> first = new HashMap<>();
        for (ConsumerRecord<String, byte[]> record : records) {
            first.putIfAbsent(new TopicPartition(record.topic(), record.partition()), record.offset());
        }
        first.forEach(consumer::seek);
    }

    private static void pause(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private final class Rebalance implements ConsumerRebalanceListener {
        private final Consumer<String, byte[]> consumer;

        Rebalance(Consumer<String, byte[]> consumer) {
            this.consumer = consumer;
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            doze.wake(consumer); // a dozing worker's alarm watches the old assignment; fetch the new one
            assigned = true;
            paused = false;
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            try {
                commitFinished(consumer);
            } catch (RuntimeException e) {
                LOG.fine("webhook sink could not commit before a rebalance: " + e.getMessage());
            }
            tracker.abandon(partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            tracker.abandon(partitions);
        }
    }

    @Override
    public void close() {
        doze.release(); // a dozing loop waits on its alarm, which the loop's close does not wake
        loop.close();
        dispatcher.close();
    }
}
