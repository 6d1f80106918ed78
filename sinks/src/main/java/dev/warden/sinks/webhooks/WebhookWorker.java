package dev.warden.sinks.webhooks;

import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.pipeline.contract.StreamEventCodec;
import dev.warden.sinks.runtime.DeadLetter;
import dev.warden.sinks.runtime.SinkHealth;
import dev.warden.sinks.runtime.SinkWorker;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;
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
 * event was published receives it) and about once a second while idle; if it cannot be read, the batch is
 * rewound and retried. Consumption pauses while more than {@value #MAX_IN_FLIGHT} events are unfinished.
 * Runs on its own thread; {@link #close()} stops it.
 */
public final class WebhookWorker implements AutoCloseable {
    /** The name of this sink in dead letters, health and metrics. */
    public static final String SINK = "webhooks";
    /** Unfinished events beyond which consumption pauses (resumes at half). */
    static final int MAX_IN_FLIGHT = 10_000;
    private static final Logger LOG = Logger.getLogger(WebhookWorker.class.getName());
    private static final Duration IDLE_REFRESH = Duration.ofSeconds(1);

    private final KafkaConsumer<String, byte[]> consumer;
    private final String topic;
    private final WebhookDirectory directory;
    private final WebhookDispatcher dispatcher;
    private final OffsetTracker tracker = new OffsetTracker();
    private final Consumer<List<DeadLetter>> deadLetters;
    private final SinkHealth health = new SinkHealth(SINK);
    private final Thread thread;
    private volatile boolean running = true;
    private volatile boolean assigned;
    private long lastRefreshNanos;
    private boolean paused;

    /**
     * @param groupId     the consumer group, {@code <streams application prefix>webhooks}
     * @param deadLetters stores the events that cannot be decoded (at least once: offsets live in Kafka)
     */
    public WebhookWorker(String bootstrap, String groupId, String topic, WebhookDirectory directory,
                         WebhookOptions options, WebhookCounters counters, InstantSource clock,
                         Consumer<List<DeadLetter>> deadLetters) {
        this.topic = topic;
        this.deadLetters = deadLetters;
        this.directory = directory;
        this.dispatcher = new WebhookDispatcher(directory, new HttpWebhookTransport(options.timeout()),
                TargetGuard.system(options.allowPrivateTargets()), options, counters, clock, Thread::sleep,
                Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("warden-webhook-", 0).factory()));
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, groupId);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        // A new group starts at the beginning so that nothing published before it joined is missed; endpoints
        // only receive events from their creation on (WebhookEndpoint#accepts), so history is skipped cheaply.
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500);
        p.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, SinkWorker.BATCH_FETCH_MIN_BYTES);
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, SinkWorker.BATCH_FETCH_MAX_WAIT_MS);
        this.consumer = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
        this.thread = Thread.ofPlatform().name("warden-sink-webhooks").daemon().unstarted(this::run);
        this.lastRefreshNanos = System.nanoTime() - IDLE_REFRESH.toNanos() - 1;
    }

    /** Starts consuming. */
    public void start() {
        thread.start();
    }

    /** True once the worker has joined its group (holding the partition or not), until it stops. */
    public boolean isAssigned() {
        return assigned;
    }

    private void run() {
        try {
            consumer.subscribe(List.of(topic), new Rebalance());
            while (running) {
                ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(200));
                long lag = 0;
                for (TopicPartition tp : consumer.assignment()) {
                    lag += consumer.currentLag(tp).orElse(0);
                }
                health.lag(lag, System.nanoTime());
                if (!records.isEmpty() || refreshDue()) {
                    if (!refresh()) {
                        rewind(records);
                        pause(Duration.ofSeconds(1));
                        continue;
                    }
                }
                records.forEach(this::dispatch);
                commitFinished();
                applyBackpressure();
            }
        } catch (WakeupException e) {
            // closing
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "webhook sink stopped", e);
        } finally {
            assigned = false;
            try {
                commitFinished();
            } catch (RuntimeException e) {
                LOG.fine("webhook sink could not commit on close: " + e.getMessage());
            }
            consumer.close(Duration.ofSeconds(5));
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
        WebhookDispatcher.Ticket ticket = tracker.track(new TopicPartition(record.topic(), record.partition()),
                record.offset());
        if (dispatcher.endpointCount() == 0) {
            ticket.finished(); // nobody to deliver to: not worth decoding (most events are audit events)
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

    private void commitFinished() {
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

    private void applyBackpressure() {
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

    private void rewind(ConsumerRecords<String, byte[]> records) {
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
        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            assigned = true;
            paused = false;
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            try {
                commitFinished();
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
        running = false;
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        dispatcher.close();
    }
}
