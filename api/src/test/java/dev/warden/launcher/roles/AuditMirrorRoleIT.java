package dev.warden.launcher.roles;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.api.kafka.KafkaClients;
import dev.warden.pipeline.contract.AuditBatch;
import dev.warden.pipeline.mirror.AuditMirror;
import dev.warden.testing.TestPlatform;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The mirror's handovers, on a real broker. From the pipeline application (where it ran before it had a loop of its
 * own): on its first start it continues exactly where the pipeline application stopped reading the audit topic,
 * and once it has offsets of its own it never takes any again. Between its own instances: while entries flow, a
 * second instance joins and the first leaves, and every entry is on the events topic once, in its partition's order.
 */
class AuditMirrorRoleIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform();

    @Test
    void theFirstStartContinuesFromThePipelinesOffsetsOfTheAuditTopicAndLaterStartsKeepTheirOwn() throws Exception {
        String run = "handover-" + UUID.randomUUID();
        String audit = run + ".audit";
        String pipeline = run + "-pipeline";
        String mirror = run + "-mirror";
        try (Admin admin = KafkaClients.admin(warden.infra().kafkaBootstrap(), run)) {
            admin.createTopics(List.of(new NewTopic(audit, 2, (short) 1), new NewTopic(run + ".other", 1, (short) 1)))
                    .all().get();
            awaitLeaders(admin, audit, run + ".other");

            AuditMirrorRole.takeOverOffsets(admin, pipeline, mirror, audit);
            assertThat(offsets(admin, mirror)).as("nothing to take over: the mirror starts as any application does")
                    .isEmpty();

            admin.alterConsumerGroupOffsets(pipeline, Map.of(
                    new TopicPartition(audit, 0), new OffsetAndMetadata(5),
                    new TopicPartition(audit, 1), new OffsetAndMetadata(7),
                    new TopicPartition(run + ".other", 0), new OffsetAndMetadata(3))).all().get();
            AuditMirrorRole.takeOverOffsets(admin, pipeline, mirror, audit);
            assertThat(offsets(admin, mirror)).as("the audit topic's offsets, and only those")
                    .isEqualTo(Map.of(new TopicPartition(audit, 0), 5L, new TopicPartition(audit, 1), 7L));

            admin.alterConsumerGroupOffsets(pipeline, Map.of(new TopicPartition(audit, 0), new OffsetAndMetadata(9)))
                    .all().get();
            AuditMirrorRole.takeOverOffsets(admin, pipeline, mirror, audit);
            assertThat(offsets(admin, mirror)).as("a mirror with offsets of its own keeps them")
                    .isEqualTo(Map.of(new TopicPartition(audit, 0), 5L, new TopicPartition(audit, 1), 7L));
        }
    }

    @Test
    void instancesJoiningAndLeavingMirrorEveryEntryExactlyOnceInItsPartitionsOrder() throws Exception {
        String run = "mirrors-" + UUID.randomUUID();
        String audit = run + ".audit";
        String events = run + ".events";
        int partitions = 4;
        int perPartition = 600;
        try (Admin admin = KafkaClients.admin(warden.infra().kafkaBootstrap(), run)) {
            admin.createTopics(List.of(new NewTopic(audit, partitions, (short) 1), new NewTopic(events, 1, (short) 1)))
                    .all().get();
            awaitLeaders(admin, audit, events);
        }
        Thread producing = Thread.ofPlatform().start(() -> produce(audit, partitions, perPartition));
        AuditMirror a = mirror(run, audit, events, "a").start();
        AuditMirror b = null;
        try {
            Thread.sleep(700);
            b = mirror(run, audit, events, "b").start(); // the group rebalances: a commits before it lets go
            Thread.sleep(700);
            a.close(); // b takes every partition from a's last commit
            assertThat(a.state()).isEqualTo(AuditMirror.State.STOPPED);
            producing.join();

            Map<Integer, List<Integer>> mirrored = readMirrored(events, partitions * perPartition);
            assertThat(b.state()).isEqualTo(AuditMirror.State.RUNNING);
            for (int p = 0; p < partitions; p++) {
                assertThat(mirrored.get(p)).as("partition %d: every entry once, in order", p)
                        .isEqualTo(java.util.stream.IntStream.range(0, perPartition).boxed().toList());
            }
        } finally {
            a.close();
            if (b != null) {
                b.close();
            }
        }
    }

    private static AuditMirror mirror(String run, String audit, String events, String instance) {
        return new AuditMirror(warden.infra().kafkaBootstrap(), audit, events, run + "-mirror",
                run + "-mirror-" + instance, run + "-" + instance, java.time.Duration.ofMillis(20),
                io.opentelemetry.api.OpenTelemetry.noop().getTracer("test"));
    }

    /** {@code perPartition} entries {@code "p:n"} on every partition, spread over about two seconds. */
    private static void produce(String topic, int partitions, int perPartition) {
        Map<String, Object> props = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, warden.infra().kafkaBootstrap());
        try (KafkaProducer<String, byte[]> producer =
                     new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer())) {
            for (int n = 0; n < perPartition; n++) {
                for (int p = 0; p < partitions; p++) {
                    producer.send(new ProducerRecord<>(topic, p, null, (p + ":" + n).getBytes(StandardCharsets.UTF_8)));
                }
                if (n % 20 == 0) {
                    Thread.sleep(60);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Each audit partition's entry numbers, in the order the events topic holds them, once {@code expected} are. */
    private static Map<Integer, List<Integer>> readMirrored(String events, int expected) {
        Map<String, Object> props = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, warden.infra().kafkaBootstrap(),
                ConsumerConfig.GROUP_ID_CONFIG, "reader-" + UUID.randomUUID(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        Map<Integer, List<Integer>> out = new java.util.TreeMap<>();
        int seen = 0;
        try (KafkaConsumer<String, byte[]> consumer =
                     new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(events));
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (seen < expected && System.nanoTime() < deadline) {
                for (var record : consumer.poll(java.time.Duration.ofMillis(200))) {
                    assertThat(AuditBatch.isBatch(record.headers())).isTrue();
                    for (AuditBatch.Entry entry : AuditBatch.decode(record.value())) {
                        String[] pn = new String(entry.value(), StandardCharsets.UTF_8).split(":");
                        out.computeIfAbsent(Integer.parseInt(pn[0]), k -> new ArrayList<>()).add(Integer.parseInt(pn[1]));
                        seen++;
                    }
                }
            }
            // Anything written twice would come after the last expected entry: read on a little.
            consumer.poll(java.time.Duration.ofMillis(500)).forEach(record -> {
                for (AuditBatch.Entry entry : AuditBatch.decode(record.value())) {
                    String[] pn = new String(entry.value(), StandardCharsets.UTF_8).split(":");
                    out.computeIfAbsent(Integer.parseInt(pn[0]), k -> new ArrayList<>()).add(Integer.parseInt(pn[1]));
                }
            });
        }
        return out;
    }

    /** Until the broker knows every partition's leader: offsets of a topic it has not loaded yet are refused. */
    private static void awaitLeaders(Admin admin, String... topics) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!leadersKnown(admin, topics)) {
            assertThat(System.nanoTime()).as("partitions without a leader after 30 s").isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private static boolean leadersKnown(Admin admin, String... topics) throws Exception {
        try {
            return admin.describeTopics(List.of(topics)).allTopicNames().get().values().stream()
                    .allMatch(t -> t.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty()));
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return false; // created, not loaded yet
            }
            throw e;
        }
    }

    private static Map<TopicPartition, Long> offsets(Admin admin, String group) throws Exception {
        return admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().entrySet().stream()
                .filter(e -> e.getValue() != null)
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }
}
