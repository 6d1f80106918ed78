package dev.warden.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.runtime.consumer.BatchWriter;
import dev.warden.runtime.consumer.DeadLetter;
import dev.warden.runtime.consumer.GroupWaits;
import dev.warden.runtime.consumer.PoisonedBatchException;
import dev.warden.runtime.consumer.SinkCounters;
import dev.warden.runtime.consumer.SinkWorker;
import dev.warden.testing.SharedInfra;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The sink runtime on a real broker, with a writer that keeps its rows and offsets in memory (atomically, as
 * a real one does in its database) and fails some stores: every record is stored exactly once and in order
 * per partition, batches are prepared on the polling thread and stored on the store thread, and a failed
 * store is counted and retried from the stored offsets while the next batch, already prepared, is dropped.
 */
class SinkWorkerIT {
    static SharedInfra infra;

    @RegisterExtension
    static final BeforeAllCallback SHARED = context -> infra = SharedInfra.get(context);

    @Test
    void everyRecordIsStoredOnceInOrderAcrossFailedStores() throws Exception {
        String topic = "sink-worker-" + UUID.randomUUID();
        int n = 3_000;
        produce(topic, 3, n, 30);
        RecordingWriter writer = new RecordingWriter(Set.of(2, 5, 6));
        SinkCounters counters = new SinkCounters();
        try (SinkWorker worker =
                new SinkWorker("test", infra.kafkaBootstrap(), "it-" + topic + "-", topic, 100, writer, counters)) {
            worker.start();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (writer.total() < n && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            Thread.sleep(500); // anything stored twice would show up now
        }
        List<Integer> all = new ArrayList<>();
        writer.rows.values().forEach(all::addAll);
        assertThat(all).hasSize(n).doesNotHaveDuplicates();
        for (List<Integer> partition : writer.rows.values()) {
            // keys map to partitions, and within a key values were sent in increasing order
            Map<Integer, Integer> lastByKey = new HashMap<>();
            for (int v : partition) {
                Integer last = lastByKey.put(v % 30, v);
                assertThat(last == null || last < v)
                        .as("order within key %s", v % 30)
                        .isTrue();
            }
        }
        assertThat(counters.snapshot().auditFailed())
                .as("failed stores are counted")
                .isPositive();
        assertThat(writer.prepareThreads).allMatch(t -> t.equals("warden-sink-test"));
        assertThat(writer.storeThreads).allMatch(t -> t.equals("warden-sink-test-store"));
    }

    @Test
    void recordsTheStoreRefusesAreIsolatedAndDeadLetteredWhileEveryOtherRecordIsStoredOnce() throws Exception {
        String topic = "sink-poison-" + UUID.randomUUID();
        int n = 2_000;
        produce(topic, 2, n, 10);
        Set<Integer> poison = Set.of(7, 500, 501, 1999);
        RecordingWriter writer = new RecordingWriter(Set.of(3), poison);
        SinkCounters counters = new SinkCounters();
        try (SinkWorker worker =
                new SinkWorker("poison", infra.kafkaBootstrap(), "it-" + topic + "-", topic, 300, writer, counters)) {
            worker.start();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (writer.total() + writer.deadLetters.size() < n && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            Thread.sleep(500);
            assertThat(worker.health().deadLetteredCount()).isEqualTo(poison.size());
            assertThat(worker.health().degradedReason()).isEmpty();
        }
        List<Integer> all = new ArrayList<>();
        writer.rows.values().forEach(all::addAll);
        assertThat(all).hasSize(n - poison.size()).doesNotHaveDuplicates().doesNotContainAnyElementsOf(poison);
        assertThat(writer.deadLetters)
                .extracting(d -> Integer.parseInt(new String(d.value().orElseThrow())))
                .containsExactlyInAnyOrderElementsOf(poison);
        assertThat(writer.deadLetters).allSatisfy(d -> {
            assertThat(d.sink()).isEqualTo("poison");
            assertThat(d.error()).contains("refused (injected)");
        });
        assertThat(counters.snapshot().auditDropped()).isEqualTo(poison.size());
    }

    @Test
    void aSinkThatKeepsFailingIsReportedDegradedWithItsError() throws Exception {
        String topic = "sink-failing-" + UUID.randomUUID();
        produce(topic, 1, 1, 1);
        Set<Integer> everyStore = new HashSet<>();
        for (int i = 1; i <= 1000; i++) {
            everyStore.add(i);
        }
        RecordingWriter writer = new RecordingWriter(everyStore);
        try (SinkWorker worker = new SinkWorker(
                "down", infra.kafkaBootstrap(), "it-" + topic + "-", topic, 100, writer, new SinkCounters())) {
            worker.start();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (worker.health().degradedReason().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(worker.health().degradedReason())
                    .get()
                    .asString()
                    .contains("failing")
                    .contains("fails (injected)");
            assertThat(writer.total()).as("a transient failure drops nothing").isZero();
            assertThat(writer.deadLetters).isEmpty();
        }
    }

    /**
     * An idle worker dozes (its fetches paused, an alarm watching its positions), and a record that comes while it
     * dozes, or just as it begins to, is stored at once and once: the doze cap here is five minutes, so a record the
     * alarm missed would wait that long, and a record the alarm handed over is not read again. Records are written
     * in transactions, as the audit log's are, and read committed.
     */
    @Test
    void anIdleWorkerDozesAndARecordWakesItAtOnce() throws Exception {
        String topic = "sink-dozing-" + UUID.randomUUID();
        produce(topic, 3, 0, 1);
        RecordingWriter writer = new RecordingWriter(Set.of());
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "it-" + topic);
        java.util.Random random = new java.util.Random(7);
        List<Long> storedAfterMillis = new ArrayList<>();
        try (KafkaProducer<String, byte[]> producer =
                        new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
                SinkWorker worker = new SinkWorker(
                                "dozer",
                                infra.kafkaBootstrap(),
                                "it-" + topic + "-",
                                topic,
                                100,
                                writer,
                                new SinkCounters(),
                                io.opentelemetry.api.OpenTelemetry.noop().getTracer("it"),
                                GroupWaits.fetching(Duration.ofMillis(20)))
                        .dozing(Duration.ofMillis(200), Duration.ofMinutes(5))) {
            producer.initTransactions();
            worker.start();
            for (int i = 0; i < 24; i++) {
                if (i % 2 == 0) {
                    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                    while (!worker.isDozing() && System.nanoTime() < deadline) {
                        Thread.sleep(10);
                    }
                    assertThat(worker.isDozing())
                            .as("dozing before record %s", i)
                            .isTrue();
                } else {
                    Thread.sleep(150 + random.nextInt(100)); // around the doze's start: pausing races the record
                }
                long sent = System.nanoTime();
                producer.beginTransaction();
                producer.send(
                        new ProducerRecord<>(topic, "k" + i, Integer.toString(i).getBytes()));
                producer.commitTransaction();
                long deadline = sent + Duration.ofSeconds(20).toNanos();
                while (writer.total() < i + 1 && System.nanoTime() < deadline) {
                    Thread.sleep(2);
                }
                assertThat(writer.total())
                        .as("record %s stored while the worker dozed", i)
                        .isEqualTo(i + 1);
                storedAfterMillis.add((System.nanoTime() - sent) / 1_000_000);
            }
            Thread.sleep(500); // a record handed over by the alarm and read again by the worker would show up now
        }
        List<Integer> all = new ArrayList<>();
        writer.rows.values().forEach(all::addAll);
        assertThat(all).as("each record stored once").hasSize(24).doesNotHaveDuplicates();
        assertThat(storedAfterMillis).as("ms from each commit to its store").allMatch(ms -> ms < 5_000);
    }

    /**
     * Creates {@code topic}, waits until the broker knows a leader for each partition, and writes {@code n}
     * records {@code "0"} to {@code "n-1"} keyed {@code "k<i % keys>"}, each acknowledged: a record the broker
     * never took fails here, by name, not later as a missing row.
     */
    private static void produce(String topic, int partitions, int n, int keys) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap()))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                    .all()
                    .get();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!leadersKnown(admin, topic)) {
                assertThat(System.nanoTime())
                        .as("partitions of %s without a leader after 30 s", topic)
                        .isLessThan(deadline);
                Thread.sleep(50);
            }
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap());
        // Not idempotent (one request in flight keeps the order). In fresh-clone CI, right after the module's broker
        // started, the idempotent producer's first records were once not acknowledged within 60 s (the test failed
        // before the worker ran); an idempotent producer first needs a producer id from the broker, a step this
        // skips. The cause was not proven; if it recurs, the failure names this helper.
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<String, byte[]> producer =
                new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < n; i++) {
                sent.add(producer.send(new ProducerRecord<>(
                        topic, "k" + (i % keys), Integer.toString(i).getBytes())));
            }
            for (int i = 0; i < n; i++) {
                sent.get(i).get(60, TimeUnit.SECONDS);
            }
        }
    }

    private static boolean leadersKnown(Admin admin, String topic) throws Exception {
        try {
            return admin.describeTopics(List.of(topic)).allTopicNames().get().values().stream()
                    .allMatch(t -> t.partitions().stream()
                            .allMatch(p -> p.leader() != null && !p.leader().isEmpty()));
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return false; // created, not loaded yet
            }
            throw e;
        }
    }

    /**
     * Rows and offsets in memory, stored together; the stores numbered in {@code failing} throw a transient
     * failure instead, and a batch holding a value of {@code poison} is refused as a poisoned batch.
     */
    private static final class RecordingWriter implements BatchWriter {
        final Map<TopicPartition, List<Integer>> rows = new ConcurrentHashMap<>();
        final Map<TopicPartition, Long> offsets = new ConcurrentHashMap<>();
        final List<DeadLetter> deadLetters = java.util.Collections.synchronizedList(new ArrayList<>());
        final Set<Integer> poison;
        final Set<String> prepareThreads = ConcurrentHashMap.newKeySet();
        final Set<String> storeThreads = ConcurrentHashMap.newKeySet();
        final Set<Integer> failing;
        final AtomicInteger stores = new AtomicInteger();

        RecordingWriter(Set<Integer> failing) {
            this(failing, Set.of());
        }

        RecordingWriter(Set<Integer> failing, Set<Integer> poison) {
            this.failing = new HashSet<>(failing);
            this.poison = Set.copyOf(poison);
        }

        @Override
        public synchronized void deadLetter(DeadLetter letter, Map<TopicPartition, Long> nextOffsets) {
            deadLetters.add(letter);
            offsets.putAll(nextOffsets);
        }

        synchronized int total() {
            return rows.values().stream().mapToInt(List::size).sum();
        }

        @Override
        public synchronized Map<TopicPartition, Long> storedOffsets(Collection<TopicPartition> partitions) {
            Map<TopicPartition, Long> out = new HashMap<>();
            partitions.forEach(tp -> {
                if (offsets.containsKey(tp)) {
                    out.put(tp, offsets.get(tp));
                }
            });
            return out;
        }

        @Override
        public WriteResult write(List<ConsumerRecord<String, byte[]>> records, Map<TopicPartition, Long> nextOffsets) {
            return prepare(records, nextOffsets).store();
        }

        @Override
        public PreparedBatch prepare(
                List<ConsumerRecord<String, byte[]>> records, Map<TopicPartition, Long> nextOffsets) {
            prepareThreads.add(Thread.currentThread().getName());
            List<ConsumerRecord<String, byte[]>> batch = List.copyOf(records);
            Map<TopicPartition, Long> next = Map.copyOf(nextOffsets);
            return () -> {
                storeThreads.add(Thread.currentThread().getName());
                if (failing.contains(stores.incrementAndGet())) {
                    throw new IllegalStateException("store " + stores.get() + " fails (injected)");
                }
                for (ConsumerRecord<String, byte[]> r : batch) {
                    if (poison.contains(Integer.parseInt(new String(r.value())))) {
                        throw new PoisonedBatchException(
                                "value " + new String(r.value()) + " refused (injected)", null);
                    }
                }
                synchronized (this) {
                    // No dedup guard here: a record handed over twice would be stored twice, and the test sees it.
                    for (ConsumerRecord<String, byte[]> r : batch) {
                        TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                        rows.computeIfAbsent(tp, k -> new ArrayList<>()).add(Integer.parseInt(new String(r.value())));
                    }
                    offsets.putAll(next);
                }
                return new WriteResult(batch.size(), 0);
            };
        }
    }
}
