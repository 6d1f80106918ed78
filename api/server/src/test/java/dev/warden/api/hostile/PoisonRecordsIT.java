package dev.warden.api.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditEntryCodec;
import dev.warden.pipeline.contract.AuditResult;
import dev.warden.pipeline.contract.Json;
import dev.warden.testing.DecisionLoad;
import dev.warden.testing.HandMadeBatches;
import dev.warden.testing.Http;
import dev.warden.testing.SseClient;
import dev.warden.testing.TestPlatform;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Records that got onto the topics although the store refuses them (written by an older version, or by
 * anything else with access to the broker) never stop a sink: on a real broker and PostgreSQL the poison
 * record is dead-lettered, counted and listed for the administrator, and every later record is stored. A
 * store that fails for another reason (its table gone) drops nothing, is reported DEGRADED, and catches up.
 */
class PoisonRecordsIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform();

    static Http http;
    static String admin;
    static String agentId;

    @BeforeAll
    static void fixtures() {
        http = warden.http();
        admin = warden.adminToken();
        agentId = http.post("/agents", admin, """
                {"ownerId":"pat","name":"n","type":"service","permissions":[{"resource":"*","actions":["*"]}]}""").json().get("id").asText();
    }

    @Test
    void aPoisonAuditRecordIsDeadLetteredAndEveryLaterDecisionStillReachesTheAuditLog() throws Exception {
        long droppedBefore =
                http.get("/audit/stats", admin).json().get("AuditDropped").asLong();
        AuditEntry poison = new AuditEntry(
                "aud_poison_nul_0000000000",
                agentId,
                Optional.of("pat"),
                "admin",
                "read",
                "x:y",
                Map.of("x", "a\u0000b"),
                AuditResult.ALLOWED,
                Optional.empty(),
                0.1,
                0,
                Instant.now(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty());
        produce(warden.topics().audit(), agentId, AuditEntryCodec.encode(poison));
        produce(warden.topics().audit(), agentId, "{not an audit entry".getBytes(StandardCharsets.UTF_8));

        String later = decide();
        await(
                () -> http.get("/audit?agentId=" + agentId + "&limit=1000", admin)
                        .body()
                        .contains(later),
                "later decision");

        JsonNode letters =
                http.get("/admin/v1/dead-letters?sink=postgres-audit", admin).json();
        assertThat(letters).anySatisfy(l -> {
            assertThat(l.get("value").asText()).contains("aud_poison_nul_0000000000");
            assertThat(l.get("error").asText()).containsIgnoringCase("refused by PostgreSQL");
            assertThat(l.get("topic").asText()).isEqualTo(warden.topics().audit());
        });
        assertThat(letters).anySatisfy(l -> assertThat(l.get("error").asText()).startsWith("undecodable audit record"));
        // Counted once the worker has settled the batch, a moment after its commit made the rows visible.
        await(
                () -> http.get("/audit/stats", admin).json().get("AuditDropped").asLong() == droppedBefore + 2,
                "AuditDropped counts both");
        assertThat(http.get("/observe/metrics", null).body())
                .contains("warden_sink_dead_letters_total{sink=\"postgres-audit\"} 2");
        await(
                () -> http.get("/observe/health", null)
                        .json()
                        .get("status")
                        .asText()
                        .equals("UP"),
                "health UP: dead letters are counted, not a failure");
    }

    @Test
    void aPoisonStreamEventIsDeadLetteredAndLaterEventsAreStoredForReplay() throws Exception {
        produce(
                warden.topics().events(),
                agentId,
                ("{\"type\":\"cost.recorded\",\"timestamp\":\"2026-11-24T00:00:00.000Z\","
                                + "\"data\":{\"tool\":\"a\\u0000b\"},\"agentId\":\"" + agentId + "\",\"userId\":null}")
                        .getBytes(StandardCharsets.UTF_8));
        String created = http.post("/agents", admin, """
                {"ownerId":"pat","name":"after-poison","type":"service","permissions":[]}""").json().get("id").asText();

        await(() -> storedEvents("agent_id = '" + created + "'") > 0, "the later event in service_stream_events");
        JsonNode letters =
                http.get("/admin/v1/dead-letters?sink=stream-store", admin).json();
        assertThat(letters).anySatisfy(l -> assertThat(l.get("value").asText()).contains("a\\u0000b"));
        // At least 1 (the audit entry poisoned with NUL is dead-lettered by the audit writer, never published).
        await(
                () -> http.get("/observe/metrics", null)
                        .body()
                        .matches("(?s).*warden_sink_dead_letters_total\\{sink=\"stream-store\"} [1-9].*"),
                "the stream store's dead letter counted");
    }

    @Test
    void aMalformedAuditBatchOrEntryCostsOnlyItselfLiveAndOnReplay() throws Exception {
        Map<String, String> bearer = Map.of("Authorization", "Bearer " + admin);
        long broken;
        long batch;
        try (SseClient live = SseClient.connect(http.baseUri(), "/events/stream?types=audit", bearer)) {
            assertThat(live.next(Duration.ofSeconds(10)).comment()).isEqualTo("connected");
            broken = HandMadeBatches.produceRaw(
                    warden, "hand", "WAB1\0\0\0\2truncated".getBytes(StandardCharsets.US_ASCII));
            batch = HandMadeBatches.produce(
                    warden,
                    "hand",
                    List.of(
                            HandMadeBatches.entry("aud_hand_a", "agt_hand", "pat", Instant.now()),
                            "{\"not\":\"an audit entry\"}".getBytes(StandardCharsets.UTF_8),
                            HandMadeBatches.entry("aud_hand_b", "agt_hand", "pat", Instant.now())));
            assertThat(handEntries(live)).as("live").containsExactly(batch + ".0 aud_hand_a", batch + ".2 aud_hand_b");
        }

        await(() -> storedEvents("id = " + batch + " AND batch IS NOT NULL") == 1, "the batch stored as one row");
        assertThat(storedEvents("id = " + broken))
                .as("the broken batch is not stored")
                .isZero();
        assertThat(http.get("/admin/v1/dead-letters?sink=stream-store", admin).json())
                .anySatisfy(l -> {
                    assertThat(l.get("offset").asLong()).isEqualTo(broken);
                    assertThat(l.get("error").asText()).contains("audit batch is truncated");
                });

        Map<String, String> resume = new java.util.HashMap<>(bearer);
        resume.put("Last-Event-ID", Long.toString(broken - 1));
        try (SseClient replay = SseClient.connect(http.baseUri(), "/events/stream?types=audit", resume)) {
            assertThat(handEntries(replay))
                    .as("replayed from the store")
                    .containsExactly(batch + ".0 aud_hand_a", batch + ".2 aud_hand_b");
        }
        // The stream goes on: a decision made now reaches a new subscriber.
        try (SseClient after = SseClient.connect(http.baseUri(), "/events/stream?types=audit", resume)) {
            String later = decide();
            List<String> entries = new java.util.ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (entries.stream().noneMatch(e -> e.endsWith(later)) && System.nanoTime() < deadline) {
                for (SseClient.Message m : after.events(100, Duration.ofMillis(500))) {
                    entries.add(Json.mapper()
                            .readTree(m.data())
                            .at("/data/entry/id")
                            .asText());
                }
            }
            assertThat(entries).contains(later);
        }
    }

    /** {@code "<event id> <entry id>"} of the hand-made entries a stream delivers, up to {@code aud_hand_b}. */
    static List<String> handEntries(SseClient sse) throws Exception {
        List<String> out = new java.util.ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (out.stream().noneMatch(e -> e.endsWith("aud_hand_b")) && System.nanoTime() < deadline) {
            for (SseClient.Message m : sse.events(100, Duration.ofMillis(500))) {
                JsonNode event = Json.mapper().readTree(m.data());
                if (event.at("/agentId").asText().equals("agt_hand")) {
                    out.add(m.id() + " " + event.at("/data/entry/id").asText());
                }
            }
        }
        return out;
    }

    @Test
    void aStoreThatCannotWriteDropsNothingIsReportedDegradedAndCatchesUp() throws Exception {
        sql("ALTER TABLE audit_events RENAME TO audit_events_away");
        Set<String> answered;
        try {
            try (DecisionLoad load = DecisionLoad.start(http, admin, agentId, 2)) {
                await(
                        () -> http.get("/observe/health", null)
                                .json()
                                .get("status")
                                .asText()
                                .equals("DEGRADED"),
                        "health DEGRADED");
                answered = load.answered();
            }
            JsonNode health = http.get("/observe/health", null).json();
            assertThat(health.at("/components/sink-workers/status").asText()).isEqualTo("DEGRADED");
            assertThat(health.at("/components/sink-workers/detail").asText()).contains("postgres-audit: failing");
            assertThat(http.get("/observe/metrics", null).body())
                    .contains("warden_sink_degraded{sink=\"postgres-audit\"} 1");
        } finally {
            sql("ALTER TABLE audit_events_away RENAME TO audit_events");
        }
        await(
                () -> http.get("/observe/health", null)
                        .json()
                        .get("status")
                        .asText()
                        .equals("UP"),
                "health UP again");
        Map<String, Integer> stored = DecisionLoad.storedCounts(
                warden.infra().jdbcUrl(),
                warden.config().postgres().schema().orElseThrow(),
                answered,
                Duration.ofSeconds(30));
        assertThat(answered).isNotEmpty();
        assertThat(stored.keySet()).containsAll(answered);
        assertThat(answered).allSatisfy(id -> assertThat(stored.get(id)).isEqualTo(1));
        assertThat(http.get("/admin/v1/dead-letters?sink=postgres-audit", admin).body())
                .doesNotContain(answered.iterator().next());
    }

    static String decide() {
        Http.Response res = http.post(
                "/authorize", admin, "{\"agentId\":\"" + agentId + "\",\"action\":\"read\",\"resource\":\"x:y\"}");
        assertThat(res.status()).isEqualTo(200);
        return res.json().get("auditId").asText();
    }

    static void produce(String topic, String key, byte[] value) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, warden.infra().kafkaBootstrap());
        try (KafkaProducer<String, byte[]> producer =
                new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topic, key, value)).get();
        }
    }

    static void sql(String statement) throws Exception {
        try (Connection conn = DriverManager.getConnection(warden.infra().jdbcUrl());
                Statement st = conn.createStatement()) {
            st.execute(
                    "SET search_path TO " + warden.config().postgres().schema().orElseThrow());
            st.execute(statement);
        }
    }

    static long storedEvents(String where) {
        try (Connection conn = DriverManager.getConnection(warden.infra().jdbcUrl());
                Statement st = conn.createStatement()) {
            st.execute(
                    "SET search_path TO " + warden.config().postgres().schema().orElseThrow());
            try (ResultSet rs = st.executeQuery("SELECT count(*) FROM service_stream_events WHERE " + where)) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    static void await(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 30 s: " + what);
            }
            Thread.sleep(100);
        }
    }
}
