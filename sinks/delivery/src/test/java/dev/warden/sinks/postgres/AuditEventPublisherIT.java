package dev.warden.sinks.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.pipeline.contract.AuditBatch;
import dev.warden.sinks.SinkTables;
import dev.warden.testing.SharedInfra;
import io.opentelemetry.api.OpenTelemetry;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Each stored audit entry is published once, on a real broker and database: a batch published whose transaction
 * never committed (the writer died, the commit failed) is found on the topic and not published again, whether the
 * same publisher or another one (another instance) stores those entries next, and even when that batch reaches the
 * topic only after the next publisher took over; publishers that take turns never publish what the other did.
 */
class AuditEventPublisherIT {
    static SharedInfra infra;

    @RegisterExtension
    static final BeforeAllCallback SHARED = context -> infra = SharedInfra.get(context);

    /** Each test's own events topic (a publisher takes the marks of every batch it finds there). */
    static String topic;

    @BeforeEach
    void topic() throws Exception {
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
            publishAndCommit(db, a, sources(0, 0, 15)); // 0-9 are on the topic already: 10-14
            publishAndRollBack(db, b, sources(0, 5, 20)); // another instance: 15-19, never committed
            publishAndCommit(db, b, sources(0, 0, 25)); // 20-24
            publishAndCommit(db, a, merge(sources(0, 20, 30), sources(1, 0, 3))); // a's view is stale: 25-29, 1:0-2
            publishAndCommit(db, a, merge(sources(0, 28, 31), sources(1, 0, 4))); // 30, 1:3

            Map<Integer, List<Long>> published = published();
            assertThat(published.get(0))
                    .as("partition 0: each entry once, in order")
                    .isEqualTo(LongStream.range(0, 31).boxed().toList());
            assertThat(published.get(1))
                    .as("partition 1")
                    .isEqualTo(LongStream.range(0, 4).boxed().toList());
        }
    }

    @Test
    void aBatchStillOnItsWayWhenItsPublishersSessionEndedIsWaitedForAndNotPublishedAgain() throws Exception {
        try (SinkTables db = SinkTables.create(infra.jdbcUrl());
                AuditEventPublisher b = publisher("b")) {
            publishAndCommit(db, b, sources(0, 0, 2));
            long attempt = attemptThatNeverCommits(db); // a publisher's session ends while its batch is in flight
            try (ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor()) {
                // ... and the batch, with entries 2-9, reaches the broker only after the next publisher began.
                later.schedule(() -> produceBatch(attempt, 0, 1, sources(0, 2, 10)), 1_500, TimeUnit.MILLISECONDS);
                publishAndCommit(db, b, sources(0, 0, 15));
            }
            publishAndCommit(db, b, sources(0, 12, 20));

            assertThat(published().get(0))
                    .as("each entry once, in order")
                    .isEqualTo(LongStream.range(0, 20).boxed().toList());
        }
    }

    @Test
    void anAttemptThatNeverSentAnythingHoldsTheNextPublisherOnlyUntilNoBatchOfItCanArrive() throws Exception {
        try (SinkTables db = SinkTables.create(infra.jdbcUrl());
                AuditEventPublisher b = new AuditEventPublisher(
                        infra.kafkaBootstrap(),
                        topic,
                        "publisher-it-b",
                        OpenTelemetry.noop().getTracer("test"),
                        Duration.ofSeconds(1))) {
            publishAndCommit(db, b, sources(0, 0, 2));
            attemptThatNeverCommits(db);
            publishAndCommit(db, b, sources(0, 0, 5));
            publishAndCommit(db, b, sources(0, 0, 8));

            assertThat(published().get(0))
                    .isEqualTo(LongStream.range(0, 8).boxed().toList());
        }
    }

    @Test
    void aMalformedSourcesHeaderMarksNothing() {
        assertThat(AuditEventPublisher.parseSources("0=5,1=7".getBytes(StandardCharsets.US_ASCII)))
                .isEqualTo(Map.of(0, 5L, 1, 7L));
        assertThat(AuditEventPublisher.parseSources("0=5,x".getBytes(StandardCharsets.US_ASCII)))
                .isEmpty();
        assertThat(AuditEventPublisher.parseSources("0=-1".getBytes(StandardCharsets.US_ASCII)))
                .isEmpty();
        assertThat(AuditEventPublisher.parseSources(new byte[0])).isEmpty();
    }

    @Test
    void aMalformedAttemptHeaderNamesNoAttempt() {
        assertThat(AuditEventPublisher.parseAttempt(AuditEventPublisher.attemptHeader(7, 1, 3)))
                .containsExactly(7, 1, 3);
        assertThat(AuditEventPublisher.parseAttempt("7/3/3".getBytes(StandardCharsets.US_ASCII)))
                .isNull();
        assertThat(AuditEventPublisher.parseAttempt("0/0/1".getBytes(StandardCharsets.US_ASCII)))
                .isNull();
        assertThat(AuditEventPublisher.parseAttempt("x/0/1".getBytes(StandardCharsets.US_ASCII)))
                .isNull();
        assertThat(AuditEventPublisher.parseAttempt("7/0".getBytes(StandardCharsets.US_ASCII)))
                .isNull();
    }

    /**
     * What a publisher does before it sends, in a transaction that then ends: takes the lock and an attempt
     * number. Answers the number.
     */
    private static long attemptThatNeverCommits(SinkTables db) throws Exception {
        try (Connection conn = db.dataSource().getConnection();
                Statement st = conn.createStatement()) {
            conn.setAutoCommit(false);
            st.executeQuery("SELECT 1 FROM audit_event_publisher WHERE id = 1 FOR UPDATE")
                    .close();
            try (ResultSet rs = st.executeQuery("SELECT nextval('audit_event_publish_attempt')")) {
                rs.next();
                long attempt = rs.getLong(1);
                conn.rollback();
                return attempt;
            }
        }
    }

    /** Writes batch {@code index} of {@code count} of {@code attempt}, holding {@code sources}, as a publisher does. */
    private static void produceBatch(long attempt, int index, int count, List<AuditEventPublisher.Source> sources) {
        Map<Integer, Long> last = new TreeMap<>();
        sources.forEach(s -> last.merge(s.partition(), s.offset(), Math::max));
        RecordHeaders headers = new RecordHeaders();
        headers.add(AuditBatch.header());
        headers.add(new RecordHeader(AuditEventPublisher.SOURCES_HEADER, AuditEventPublisher.sourcesHeader(last)));
        headers.add(new RecordHeader(
                AuditEventPublisher.ATTEMPT_HEADER, AuditEventPublisher.attemptHeader(attempt, index, count)));
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap()),
                new ByteArraySerializer(),
                new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(
                            topic,
                            0,
                            null,
                            null,
                            AuditBatch.encode(sources.stream()
                                    .map(AuditEventPublisher.Source::entry)
                                    .toList()),
                            headers))
                    .get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static AuditEventPublisher publisher(String instance) {
        return new AuditEventPublisher(
                infra.kafkaBootstrap(),
                topic,
                "publisher-it-" + instance,
                OpenTelemetry.noop().getTracer("test"));
    }

    private static void publishAndRollBack(
            SinkTables db, AuditEventPublisher publisher, List<AuditEventPublisher.Source> sources) throws Exception {
        try (Connection conn = db.dataSource().getConnection()) {
            conn.setAutoCommit(false);
            publisher.publish(conn, sources);
            conn.rollback();
        }
    }

    private static void publishAndCommit(
            SinkTables db, AuditEventPublisher publisher, List<AuditEventPublisher.Source> sources) throws Exception {
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
            out.add(new AuditEventPublisher.Source(
                    partition,
                    offset,
                    new AuditBatch.Entry(0, "", (partition + ":" + offset).getBytes(StandardCharsets.UTF_8))));
        }
        return out;
    }

    private static List<AuditEventPublisher.Source> merge(
            List<AuditEventPublisher.Source> a, List<AuditEventPublisher.Source> b) {
        List<AuditEventPublisher.Source> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    /** Each audit partition's offsets in the order the topic holds their entries. */
    private static Map<Integer, List<Long>> published() {
        Map<Integer, List<Long>> out = new TreeMap<>();
        TopicPartition events = new TopicPartition(topic, 0);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
                Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap()),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(List.of(events));
            consumer.seekToBeginning(List.of(events));
            long end = consumer.endOffsets(List.of(events)).get(events);
            while (consumer.position(events) < end) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    for (AuditBatch.Entry entry : AuditBatch.decode(record.value())) {
                        String[] po = new String(entry.value(), StandardCharsets.UTF_8).split(":");
                        out.computeIfAbsent(Integer.parseInt(po[0]), k -> new ArrayList<>())
                                .add(Long.parseLong(po[1]));
                    }
                }
            }
        }
        return out;
    }
}
