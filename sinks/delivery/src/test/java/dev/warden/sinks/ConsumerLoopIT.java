package dev.warden.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.runtime.consumer.ConsumerLoop;
import dev.warden.testing.SharedInfra;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shared poll loop on a real broker: a record that cannot be deserialized is skipped and counted, a batch
 * whose handler throws is delivered again, and the loop keeps running through both; a reader outside any group
 * takes a record the moment it is written although the broker holds its fetches, and closes without waiting.
 */
class ConsumerLoopIT {
    static SharedInfra infra;

    @RegisterExtension
    static final BeforeAllCallback SHARED = context -> infra = SharedInfra.get(context);

    /** Refuses the value "poison", as a deserializer meeting a record of another format would. */
    static final class Picky implements Deserializer<String> {
        @Override
        public String deserialize(String topic, byte[] data) {
            String value = new String(data, StandardCharsets.UTF_8);
            if (value.equals("poison")) {
                throw new IllegalArgumentException("not a value of this topic");
            }
            return value;
        }
    }

    @Test
    void anUndeserializableRecordIsSkippedAFailedBatchIsRedeliveredAndTheLoopGoesOn() throws Exception {
        String topic = "loop-" + UUID.randomUUID();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap());
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (String value : List.of("a", "poison", "b", "c")) {
                producer.send(new ProducerRecord<>(topic, value)).get();
            }
        }
        List<String> handled = new CopyOnWriteArrayList<>();
        AtomicBoolean failedOnce = new AtomicBoolean();
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        infra.kafkaBootstrap(),
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        false),
                new StringDeserializer(),
                new Picky());
        try (ConsumerLoop<String, String> loop =
                new ConsumerLoop<>("loop-test", consumer, Duration.ofMillis(100), new ConsumerLoop.Handler<>() {
                    @Override
                    public void start(Consumer<String, String> c) {
                        TopicPartition tp = new TopicPartition(topic, 0);
                        c.assign(List.of(tp));
                        c.seekToBeginning(List.of(tp));
                    }

                    @Override
                    public void handle(ConsumerRecords<String, String> records, Consumer<String, String> c) {
                        for (var record : records) {
                            if (record.value().equals("c") && failedOnce.compareAndSet(false, true)) {
                                throw new IllegalStateException("injected failure");
                            }
                            handled.add(record.value());
                        }
                    }
                })) {
            loop.start();
            assertThat(loop.awaitStarted(Duration.ofSeconds(10))).isTrue();
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (!handled.contains("c") && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            ConsumerLoop.Health health = loop.health();
            assertThat(health.running()).isTrue();
            assertThat(health.failures()).isEqualTo(2);
        }
        assertThat(handled)
                .doesNotContain("poison")
                .containsSubsequence("a", "b", "c")
                .endsWith("c");
        assertThat(handled.stream().filter("c"::equals)).hasSize(1);
    }

    @Test
    void aReaderTakesARecordTheMomentItIsWrittenAndClosesWithoutWaitingForTheFetchTheBrokerHolds() throws Exception {
        String topic = "reader-" + UUID.randomUUID();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        List<String> handled = new CopyOnWriteArrayList<>();
        TopicPartition tp = new TopicPartition(topic, 0);
        ConsumerLoop<String, String> loop = ConsumerLoop.reader(
                "reader-test",
                new KafkaConsumer<>(
                        ConsumerLoop.readerSettings(infra.kafkaBootstrap(), "reader-test"),
                        new StringDeserializer(),
                        new StringDeserializer()),
                new ConsumerLoop.Handler<>() {
                    @Override
                    public void start(Consumer<String, String> c) {
                        c.assign(List.of(tp));
                        c.seekToBeginning(List.of(tp));
                    }

                    @Override
                    public void handle(ConsumerRecords<String, String> records, Consumer<String, String> c) {
                        records.forEach(r -> handled.add(r.value()));
                    }
                });
        Duration bound = ConsumerLoop.READER_WAIT.dividedBy(5);
        try {
            loop.start();
            assertThat(loop.awaitStarted(Duration.ofSeconds(10))).isTrue();
            Thread.sleep(500); // the reader's fetch of the empty partition is held by the broker now
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap());
            try (KafkaProducer<String, String> producer =
                    new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
                producer.send(new ProducerRecord<>(topic, "first")).get();
            }
            long written = System.nanoTime();
            while (handled.isEmpty() && System.nanoTime() - written < ConsumerLoop.READER_WAIT.toNanos()) {
                Thread.sleep(5);
            }
            assertThat(handled).containsExactly("first");
            assertThat(Duration.ofNanos(System.nanoTime() - written))
                    .as("the broker answers a held fetch as soon as a record is there")
                    .isLessThan(bound);
            Thread.sleep(500); // the next fetch is held
        } finally {
            long closing = System.nanoTime();
            loop.close();
            assertThat(Duration.ofNanos(System.nanoTime() - closing))
                    .as("a reader has nothing to settle: its close does not wait for the held fetch")
                    .isLessThan(bound);
        }
        assertThat(loop.health().running()).isFalse();
    }
}
