package dev.warden.sinks.streamstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.pipeline.contract.AuditBatch;
import dev.warden.pipeline.contract.AuditBatchRows;
import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.pipeline.contract.StreamEventCodec;
import dev.warden.runtime.consumer.BatchWriter;
import dev.warden.runtime.consumer.PoisonedBatchException;
import dev.warden.sinks.SinkTables;
import dev.warden.testing.SharedInfra;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The stream-event store on a real PostgreSQL: a batch is stored in one statement with every column as
 * written, malformed records are dead-lettered and counted, and a rewound batch stores only what is new.
 */
class StreamEventStoreWriterIT {
    static SharedInfra infra;

    @RegisterExtension
    static final BeforeAllCallback SHARED = context -> infra = SharedInfra.get(context);

    private static final String TOPIC = "events";
    private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);
    private static final Instant T0 = Instant.parse("2026-11-23T10:00:00.123Z");

    @Test
    void batchesAreStoredOnceWithEveryColumnAndARewoundBatchAddsOnlyWhatIsNew() throws Exception {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("id", "aud_1");
        entry.put("reason", null);
        ConsumerRecord<String, byte[]> audit = record(
                9_000_001,
                new StreamEvent.Draft(
                        EventType.AUDIT, T0, Map.of("entry", entry), Optional.of("agt_1"), Optional.of("olga")));
        ConsumerRecord<String, byte[]> signIn = record(
                9_000_002,
                new StreamEvent.Draft(
                        EventType.AUTH_SIGNIN,
                        T0.plusSeconds(1),
                        Map.of("method", "password"),
                        Optional.empty(),
                        Optional.of("olga")));
        ConsumerRecord<String, byte[]> garbage =
                new ConsumerRecord<>(TOPIC, 0, 9_000_003, "x", "not an event".getBytes(StandardCharsets.UTF_8));
        ConsumerRecord<String, byte[]> cost = record(
                9_000_004,
                new StreamEvent.Draft(
                        EventType.COST_RECORDED,
                        T0.plusSeconds(2),
                        Map.of("cost", Map.of("costUsd", 0.25)),
                        Optional.of("agt_1"),
                        Optional.empty()));

        try (SinkTables db = SinkTables.create(infra.jdbcUrl())) {
            StreamEventStoreWriter writer =
                    new StreamEventStoreWriter(db.dataSource(), TOPIC, Duration.ofDays(7), Clock.systemUTC());

            BatchWriter.WriteResult first =
                    writer.write(List.of(audit, signIn, garbage), Map.of(PARTITION, 9_000_004L));
            assertThat(first).isEqualTo(new BatchWriter.WriteResult(2, 1));
            assertThat(writer.storedOffsets(List.of(PARTITION))).containsEntry(PARTITION, 9_000_004L);

            BatchWriter.WriteResult rewound =
                    writer.write(List.of(signIn, garbage, cost), Map.of(PARTITION, 9_000_005L));
            assertThat(rewound).isEqualTo(new BatchWriter.WriteResult(1, 1));

            List<String> rows = new ArrayList<>();
            try (Connection conn = db.dataSource().getConnection();
                    Statement st = conn.createStatement();
                    ResultSet rs = st.executeQuery("SELECT id, type, timestamp, data::text, agent_id, user_id "
                            + "FROM service_stream_events WHERE id > 9000000 ORDER BY id")) {
                while (rs.next()) {
                    rows.add(rs.getLong(1) + "|" + rs.getString(2) + "|"
                            + rs.getTimestamp(3).toInstant() + "|" + rs.getString(4) + "|" + rs.getString(5) + "|"
                            + rs.getString(6));
                }
            }
            assertThat(rows)
                    .containsExactly(
                            "9000001|audit|2026-11-23T10:00:00.123Z|{\"entry\": {\"id\": \"aud_1\", \"reason\": null}}|agt_1|olga",
                            "9000002|auth.signin|2026-11-23T10:00:01.123Z|{\"method\": \"password\"}|null|olga",
                            "9000004|cost.recorded|2026-11-23T10:00:02.123Z|{\"cost\": {\"costUsd\": 0.25}}|agt_1|null");
        }
    }

    private static ConsumerRecord<String, byte[]> record(long offset, StreamEvent.Draft draft) {
        return new ConsumerRecord<>(TOPIC, 0, offset, draft.subjectKey(), StreamEventCodec.encode(draft));
    }

    @Test
    void aValuePostgresRefusesFailsTheBatchAsPoisonedAndTheUndecodableAreDeadLettered() throws Exception {
        ConsumerRecord<String, byte[]> nul = new ConsumerRecord<>(
                TOPIC,
                0,
                9_100_001,
                "agt_1",
                ("{\"type\":\"cost.recorded\",\"timestamp\":\"2026-11-23T10:00:00.000Z\","
                                + "\"data\":{\"tool\":\"a\\u0000b\"},\"agentId\":\"agt_1\",\"userId\":null}")
                        .getBytes(StandardCharsets.UTF_8));
        ConsumerRecord<String, byte[]> garbage =
                new ConsumerRecord<>(TOPIC, 0, 9_100_002, "x", "{\"type\":\"nope\"}".getBytes(StandardCharsets.UTF_8));
        byte[] whole = AuditBatch.encode(List.of(new AuditBatch.Entry(T0.toEpochMilli(), "", new byte[] {1, 2, 3})));
        ConsumerRecord<String, byte[]> cutBatch =
                new ConsumerRecord<>(TOPIC, 0, 9_100_003, null, Arrays.copyOf(whole, whole.length - 1));
        cutBatch.headers().add(AuditBatch.header());
        try (SinkTables db = SinkTables.create(infra.jdbcUrl())) {
            StreamEventStoreWriter writer =
                    new StreamEventStoreWriter(db.dataSource(), TOPIC, Duration.ofDays(7), Clock.systemUTC());

            assertThatThrownBy(() -> writer.write(List.of(nul), Map.of(PARTITION, 9_100_002L)))
                    .isInstanceOf(PoisonedBatchException.class);
            assertThat(writer.storedOffsets(List.of(PARTITION))).doesNotContainEntry(PARTITION, 9_100_002L);

            assertThat(writer.write(List.of(garbage), Map.of(PARTITION, 9_100_003L)))
                    .isEqualTo(new BatchWriter.WriteResult(0, 1));
            try (Connection conn = db.dataSource().getConnection();
                    Statement st = conn.createStatement();
                    ResultSet rs = st.executeQuery(
                            "SELECT sink, topic, partition, record_offset, "
                                    + "convert_from(record_value, 'UTF8'), error FROM sink_dead_letters WHERE record_offset = 9100002")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("stream-store");
                assertThat(rs.getInt(3)).isZero();
                assertThat(rs.getString(5)).isEqualTo("{\"type\":\"nope\"}");
                assertThat(rs.getString(6)).startsWith("undecodable stream event");
            }
            assertThat(writer.storedOffsets(List.of(PARTITION))).containsEntry(PARTITION, 9_100_003L);

            assertThat(writer.write(List.of(cutBatch), Map.of(PARTITION, 9_100_004L)))
                    .isEqualTo(new BatchWriter.WriteResult(0, 1));
            try (Connection conn = db.dataSource().getConnection();
                    Statement st = conn.createStatement();
                    ResultSet rs =
                            st.executeQuery("SELECT error FROM sink_dead_letters WHERE record_offset = 9100003")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1))
                        .startsWith("undecodable stream event")
                        .contains("overruns the batch");
            }
        }
    }

    /**
     * An audit batch is ~100 KB under load and TOASTed: where the server has lz4 (V17), it is compressed with lz4,
     * five times cheaper than pglz for the same size (docs/benchmarks.md), and reads back byte for byte.
     */
    @Test
    void anAuditBatchIsCompressedWithLz4WhereTheServerHasItAndReadsBackWhole() throws Exception {
        List<AuditBatch.Entry> entries = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            entries.add(new AuditBatch.Entry(
                    T0.toEpochMilli() + i,
                    "",
                    ("{\"id\":\"aud_" + i + "\",\"agentId\":"
                                    + "\"agt_1\",\"action\":\"tools/call\",\"resource\":\"mcp:fleet:" + i
                                    + "\",\"result\":"
                                    + "\"allowed\",\"parameters\":{\"q\":\"" + "x".repeat(300) + "\"}}")
                            .getBytes(StandardCharsets.UTF_8)));
        }
        byte[] value = AuditBatch.encode(entries);
        ConsumerRecord<String, byte[]> batch = new ConsumerRecord<>(TOPIC, 0, 9_200_001, null, value);
        batch.headers().add(AuditBatch.header());
        try (SinkTables db = SinkTables.create(infra.jdbcUrl())) {
            StreamEventStoreWriter writer =
                    new StreamEventStoreWriter(db.dataSource(), TOPIC, Duration.ofDays(7), Clock.systemUTC());
            assertThat(writer.write(List.of(batch), Map.of(PARTITION, 9_200_002L)))
                    .isEqualTo(new BatchWriter.WriteResult(1, 0));
            try (Connection conn = db.dataSource().getConnection();
                    Statement st = conn.createStatement()) {
                boolean lz4 = hasLz4(st);
                try (ResultSet rs = st.executeQuery("SELECT pg_column_compression(batch), batch, timestamp "
                        + "FROM service_stream_events WHERE id = 9200001")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualTo(lz4 ? "lz4" : "pglz");
                    // The row's time is its newest entry's: a replay since any entry's time finds the batch.
                    assertThat(rs.getTimestamp(3).toInstant()).isEqualTo(T0.plusMillis(199));
                    assertThat(AuditBatch.decode(rs.getBytes(2)))
                            .extracting(e -> new String(e.value(), StandardCharsets.UTF_8))
                            .containsExactlyElementsOf(entries.stream()
                                    .map(e -> new String(e.value(), StandardCharsets.UTF_8))
                                    .toList());
                }
            }
        }
    }

    /**
     * A batch whose record carries its entries' row keys (header {@code warden-audit-rows}, one per entry) is kept
     * as those keys, not a second copy of the entries; keys that do not match the batch's entries in number leave
     * the batch stored as its bytes.
     */
    @Test
    void aBatchWithItsRowKeysIsStoredAsTheKeysAndOneWithoutMatchingKeysAsItsBytes() throws Exception {
        List<AuditBatch.Entry> entries = new ArrayList<>();
        List<AuditBatchRows.Key> keys = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            entries.add(new AuditBatch.Entry(
                    T0.toEpochMilli() + i, "", ("{\"id\":\"aud_" + i + "\"}").getBytes(StandardCharsets.UTF_8)));
            keys.add(new AuditBatchRows.Key(T0.toEpochMilli() + i, "aud_" + i));
        }
        ConsumerRecord<String, byte[]> byKeys =
                new ConsumerRecord<>(TOPIC, 0, 9_300_001, null, AuditBatch.encode(entries));
        byKeys.headers().add(AuditBatch.header()).add(AuditBatchRows.header(keys));
        ConsumerRecord<String, byte[]> mismatched =
                new ConsumerRecord<>(TOPIC, 0, 9_300_002, null, AuditBatch.encode(entries));
        mismatched.headers().add(AuditBatch.header()).add(AuditBatchRows.header(keys.subList(0, 2)));
        try (SinkTables db = SinkTables.create(infra.jdbcUrl())) {
            StreamEventStoreWriter writer =
                    new StreamEventStoreWriter(db.dataSource(), TOPIC, Duration.ofDays(7), Clock.systemUTC());
            assertThat(writer.write(List.of(byKeys, mismatched), Map.of(PARTITION, 9_300_003L)))
                    .isEqualTo(new BatchWriter.WriteResult(2, 0));
            try (Connection conn = db.dataSource().getConnection();
                    Statement st = conn.createStatement();
                    ResultSet rs = st.executeQuery("SELECT id, batch, audit_rows, timestamp FROM service_stream_events"
                            + " WHERE id IN (9300001, 9300002) ORDER BY id")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getBytes("batch")).isNull();
                assertThat(AuditBatchRows.decode(rs.getBytes("audit_rows"))).containsExactlyElementsOf(keys);
                assertThat(rs.getTimestamp("timestamp").toInstant()).isEqualTo(T0.plusMillis(2));
                assertThat(rs.next()).isTrue();
                assertThat(rs.getBytes("audit_rows")).isNull();
                assertThat(AuditBatch.decode(rs.getBytes("batch"))).hasSize(3);
            }
        }
    }

    /** Whether this PostgreSQL was built with lz4 (setting it as the default compression fails otherwise). */
    private static boolean hasLz4(Statement st) {
        try {
            st.execute("SET default_toast_compression = 'lz4'");
            st.execute("RESET default_toast_compression");
            return true;
        } catch (SQLException e) {
            return false;
        }
    }
}
