package dev.warden.sinks.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.pipeline.contract.AuditBatch;
import dev.warden.sinks.SinkTables;
import dev.warden.testing.SharedInfra;
import io.opentelemetry.api.OpenTelemetry;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.LongStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Each stored audit entry is published once, on a real broker and database: a batch published whose transaction
 * never committed (the writer died, the commit failed) is found on the topic and not published again, whether the
 * same publisher or another one (another instance) stores those entries next; publishers that take turns never
 * publish what the other did.
 */
class AuditEventPublisherIT {
    static SharedInfra infra;

    @RegisterExtension
    static final BeforeAllCallback SHARED = context -> infra = SharedInfra.get(context);

    static String topic;

    @BeforeAll
    static void topic() throws Exception {
        topic = "audit-events-" + UUID.randomUUID();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
    }

    @Test
    void aBatchWhoseTransactionNeverCommittedIsNotPublishedAgainByThisOrAnotherPublisher() throws Exception {
        try (SinkTables db = SinkTables.create(infra.jdbcUrl());
             AuditEventPublisher a = publisher("a");
             AuditEventPublisher b = publisher("b")) {
            publishAndRollBack(db, a, sources(0, 0, 10));
            publishAndCommit(db, a, sources(0, 0, 15));      // 0-9 are on the topic already: 10-14
            publishAndRollBack(db, b, sources(0, 5, 20));    // another instance: 15-19, never committed
            publishAndCommit(db, b, sources(0, 0, 25));      // 20-24
            publishAndCommit(db, a, merge(sources(0, 20, 30), sources(1, 0, 3))); // a's view is stale: 25-29, 1:0-2
            publishAndCommit(db, a, merge(sources(0, 28, 31), sources(1, 0, 4))); // 30, 1:3

            Map<Integer, List<Long>> published = published();
            assertThat(published.get(0)).as("partition 0: each entry once, in order")
                    .isEqualTo(LongStream.range(0, 31).boxed().toList());
            assertThat(published.get(1)).as("partition 1").isEqualTo(LongStream.range(0, 4).boxed().toList());
        }
    }

    @Test
    void aMalformedSourcesHeaderMarksNothing() {
        assertThat(AuditEventPublisher.parseSources("0=5,1=7".getBytes(StandardCharsets.US_ASCII)))
                .isEqualTo(Map.of(0, 5L, 1, 7L));
        assertThat(AuditEventPublisher.parseSources("0=5,x".getBytes(StandardCharsets.US_ASCII))).isEmpty();
        assertThat(AuditEventPublisher.parseSources("0=-1".getBytes(StandardCharsets.US_ASCII))).isEmpty();
        assertThat(AuditEventPublisher.parseSources(new byte[0])).isEmpty();
    }

    private static AuditEventPublisher publisher(String instance) {
        return new AuditEventPublisher(infra.kafkaBootstrap(), topic, "publisher-it-" + instance,
                OpenTelemetry.noop().getTracer("test"));
    }

    private static void publishAndRollBack(SinkTables db, AuditEventPublisher publisher,
                                           List<AuditEventPublisher.Source> sources) throws Exception {
        try (Connection conn = db.dataSource().getConnection()) {
            conn.setAutoCommit(false);
            publisher.publish(conn, sources);
            conn.rollback();
        }
    }

    private static void publishAndCommit(SinkTables db, AuditEventPublisher publisher,
                                         List<AuditEventPublisher.Source> sources) throws Exception {
        try (Connection conn = db.dataSource().getConnection()) {
            conn.setAutoCommit(false);
            AuditEventPublisher.Published published = publisher.publish(conn, sources);
            conn.commit();
            publisher.committed(published);
        }
    }

    /** Entries {@code "p:o"} of audit partition {@code partition}, offsets {@code from} (inclusive) to {@code to}. */
    private static List<AuditEventPublisher.Source> sources(int partition, long from, long to) {
        List<AuditEventPublisher.Source> out = new ArrayList<>();
        for (long offset = from; offset < to; offset++) {
            out.add(new AuditEventPublisher.Source(partition, offset, new AuditBatch.Entry(0, "",
                    (partition + ":" + offset).getBytes(StandardCharsets.UTF_8))));
        }
        return out;
    }

    private static List<AuditEventPublisher.Source> merge(List<AuditEventPublisher.Source> a,
                                                          List<AuditEventPublisher.Source> b) {
        List<AuditEventPublisher.Source> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    /** Each audit partition's offsets in the order the topic holds their entries. */
    private static Map<Integer, List<Long>> published() {
        Map<Integer, List<Long>> out = new java.util.TreeMap<>();
        TopicPartition events = new TopicPartition(topic, 0);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap()), new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(List.of(events));
            consumer.seekToBeginning(List.of(events));
            long end = consumer.endOffsets(List.of(events)).get(events);
            while (consumer.position(events) < end) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    for (AuditBatch.Entry entry : AuditBatch.decode(record.value())) {
                        String[] po = new String(entry.value(), StandardCharsets.UTF_8).split(":");
                        out.computeIfAbsent(Integer.parseInt(po[0]), k -> new ArrayList<>()).add(Long.parseLong(po[1]));
                    }
                }
            }
        }
        return out;
    }
}
