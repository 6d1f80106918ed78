package dev.warden.api.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.api.kafka.KafkaClients;
import dev.warden.launcher.roles.SinksRole;
import dev.warden.pipeline.contract.AuditBatch;
import dev.warden.pipeline.contract.AuditEntryCodec;
import dev.warden.runtime.consumer.SinkCounters;
import dev.warden.runtime.db.Database;
import dev.warden.testing.DecisionLoad;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Exactly once into Postgres and onto the event stream: while decisions flow, writers come and go (each new one
 * joins before the previous one stops, so partitions move between them mid-flow), then the stored offsets are lost
 * (forcing Kafka to redeliver everything to the last writer); afterwards every auditId that {@code /authorize} returned is in
 * {@code audit_events} exactly once, and is exactly one {@code audit} event on {@code warden.events}.
 */
class AuditExactlyOnceIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b -> b.roles("api,quota"));

    @Test
    void everyReturnedAuditIdIsStoredExactlyOnceAcrossWriterCrashesAndRedelivery() throws Exception {
        Http http = warden.http();
        String admin = warden.adminToken();
        String agent = http.post(
                        "/agents",
                        admin,
                        "{\"ownerId\":\"ulf\",\"name\":\"n\",\"type\":\"service\","
                                + "\"permissions\":[{\"resource\":\"*\",\"actions\":[\"*\"]}]}")
                .json()
                .get("id")
                .asText();
        String schema = warden.config().postgres().schema().orElseThrow();
        Set<String> answered;
        String bootstrap = warden.infra().kafkaBootstrap();
        try (Database db = Database.connect(
                        warden.infra().jdbcUrl(), warden.config().postgres().pool());
                Admin kafka = KafkaClients.admin(bootstrap, "exactly-once-it")) {
            SinkCounters counters = new SinkCounters();
            try (DecisionLoad load = DecisionLoad.start(http, admin, agent, 4)) {
                SinksRole previous = null;
                for (int round = 0; round < 4; round++) {
                    SinksRole writer = SinksRole.start(
                            warden.config(), bootstrap, kafka, db, List.of(), counters, Clock.systemUTC());
                    Thread.sleep(700);
                    if (previous != null) {
                        previous.close();
                    }
                    previous = writer;
                }
                Thread.sleep(700);
                previous.close();
                load.close();
                answered = load.answered();
            }
            forgetStoredOffsets(schema); // with no writer running: the next one reads everything again
            try (SinksRole writer =
                    SinksRole.start(warden.config(), bootstrap, kafka, db, List.of(), counters, Clock.systemUTC())) {
                Map<String, Integer> stored =
                        DecisionLoad.storedCounts(warden.infra().jdbcUrl(), schema, answered, Duration.ofSeconds(60));
                assertThat(answered).hasSizeGreaterThan(50);
                assertThat(stored.keySet()).containsAll(answered);
                assertThat(stored.values()).allMatch(n -> n == 1);
                assertThat(writer.health().check().up()).isTrue();

                Map<String, Integer> published = publishedCounts(answered);
                assertThat(published.keySet())
                        .as("every answered decision is an audit event")
                        .containsAll(answered);
                assertThat(published.entrySet()).as("and only one").allMatch(e -> e.getValue() == 1);
            }
        }
    }

    /**
     * How many {@code audit} events on {@code warden.events} carry each audit id, once every one of {@code ids} has
     * been seen (a second copy would come after it: read on for a second more).
     */
    private static Map<String, Integer> publishedCounts(Set<String> ids) {
        Map<String, Integer> counts = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        warden.infra().kafkaBootstrap(),
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        "read_committed"),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            TopicPartition events =
                    new TopicPartition(warden.config().kafka().topics().events(), 0);
            consumer.assign(List.of(events));
            consumer.seekToBeginning(List.of(events));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            long quietUntil = Long.MAX_VALUE;
            while (System.nanoTime() < Math.min(deadline, quietUntil)) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    if (AuditBatch.isBatch(record.headers())) {
                        for (AuditBatch.Entry entry : AuditBatch.decode(record.value())) {
                            counts.merge(AuditEntryCodec.decode(entry.value()).id(), 1, Integer::sum);
                        }
                    }
                }
                if (quietUntil == Long.MAX_VALUE && counts.keySet().containsAll(ids)) {
                    quietUntil = System.nanoTime() + Duration.ofSeconds(1).toNanos();
                }
            }
        }
        return counts;
    }

    private static void forgetStoredOffsets(String schema) throws Exception {
        try (Connection conn = DriverManager.getConnection(warden.infra().jdbcUrl());
                Statement st = conn.createStatement()) {
            st.execute("SET search_path TO " + schema);
            st.executeUpdate("UPDATE sink_offsets SET next_offset = 0");
        }
    }
}
