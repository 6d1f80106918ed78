package dev.warden.bench;

import dev.warden.api.config.WardenConfig;
import dev.warden.api.kafka.KafkaClients;
import dev.warden.embedded.EmbeddedKafka;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditEntryCodec;
import dev.warden.pipeline.contract.AuditResult;
import dev.warden.runtime.consumer.SinkCounters;
import dev.warden.runtime.consumer.SinkWorker;
import dev.warden.runtime.db.Database;
import dev.warden.sinks.postgres.PostgresAuditWriter;
import dev.warden.testing.SharedInfra;
import java.io.StringReader;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.postgresql.PGConnection;

/**
 * Benchmarks of the audit store (run by deploy/bench/audit.sh, never by the test suite):
 * <ol>
 *   <li>writer: N audit entries on a Kafka topic → PostgresAuditWriter (COPY + ON CONFLICT + offsets) →
 *       rows/s, next to a raw COPY of the same rows into an unindexed copy of the table in the same run;</li>
 *   <li>query: 10 million rows, then the filtered GET /audit queries, median of several runs each.</li>
 * </ol>
 * Arguments: {@code <jdbc-url> <rows-for-writer> <rows-for-query>}.
 */
public final class AuditBench {
    private AuditBench() {}

    public static void main(String[] args) throws Exception {
        String jdbcUrl = args[0];
        int writerRows = Integer.parseInt(args[1]);
        long queryRows = Long.parseLong(args[2]);
        String schema = "bench_" + Long.toHexString(System.nanoTime());
        WardenConfig config =
                WardenConfig.builder().pgSchema(schema).pgPoolSize(4).build();
        Path kafkaDir = SharedInfra.worldTraversableTempDir();
        try (Database db = Database.connect(jdbcUrl, config.postgres().pool());
                EmbeddedKafka kafka = EmbeddedKafka.start(kafkaDir)) {
            db.migrate();
            writer(db, kafka.bootstrap(), writerRows);
            query(db, queryRows);
        } finally {
            try (Connection c = DriverManager.getConnection(jdbcUrl);
                    Statement st = c.createStatement()) {
                st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            }
            SharedInfra.deleteTree(kafkaDir);
        }
    }

    private static List<AuditEntry> entries(int n) {
        List<AuditEntry> out = new ArrayList<>(n);
        Instant now = Instant.now();
        for (int i = 0; i < n; i++) {
            out.add(new AuditEntry(
                    "aud_bench_" + i,
                    "agt_" + (i % 500),
                    Optional.of("usr_" + (i % 50)),
                    "admin",
                    i % 3 == 0 ? "write" : "read",
                    "mcp:svc" + (i % 20) + ":item:" + i,
                    Map.of("q", "x" + i),
                    i % 10 == 0 ? AuditResult.DENIED : AuditResult.ALLOWED,
                    Optional.empty(),
                    0.2,
                    0,
                    now.minusMillis(i),
                    Optional.of("10.0.0." + (i % 250)),
                    Optional.of("bench/1.0"),
                    Optional.empty(),
                    Optional.empty()));
        }
        return out;
    }

    private static void writer(Database db, String bootstrap, int n) throws Exception {
        List<AuditEntry> entries = entries(n);
        String topic = "bench.audit";
        try (Admin admin = KafkaClients.admin(bootstrap, "bench")) {
            admin.createTopics(List.of(new NewTopic(topic, 12, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        try (KafkaProducer<String, byte[]> producer = KafkaClients.durableProducer(bootstrap, "bench")) {
            for (AuditEntry e : entries) {
                producer.send(new ProducerRecord<>(topic, e.agentId(), AuditEntryCodec.encode(e)));
            }
            producer.flush();
        }
        String csv = PostgresAuditWriter.csv(entries);
        // The indexed baseline runs before and after the writer: the second one pays for the checkpoints and
        // vacuum that the writer's rows cause, the first does not; their mean is the baseline.
        double indexedCopyBefore = copySeconds(db, csv, "copy_indexed_before", true);
        SinkCounters counters = new SinkCounters();
        new PostgresAuditWriter(db.dataSource(), topic, counters).ensurePartitions(Instant.now());
        long start = System.nanoTime();
        try (PostgresAuditWriter writer = new PostgresAuditWriter(db.dataSource(), topic, counters);
                SinkWorker worker = new SinkWorker("bench", bootstrap, "bench-", topic, 20_000, writer, counters)) {
            worker.start();
            while (counters.snapshot().auditWritten() < n) {
                Thread.sleep(20);
            }
        }
        double writerSeconds = (System.nanoTime() - start) / 1e9;

        // Same indexes and primary key as audit_events, whatever the migrations made them (one table, not partitioned).
        double indexedCopyAfter = copySeconds(db, csv, "copy_indexed_after", true);
        double bareCopy = copySeconds(db, csv, "copy_bare", false);
        double indexedCopy = (indexedCopyBefore + indexedCopyAfter) / 2;
        double writerRate = n / writerSeconds;
        System.out.printf(
                "writer: %d rows from Kafka into audit_events in %.2f s = %.0f rows/s%n", n, writerSeconds, writerRate);
        System.out.printf(
                "baseline raw COPY, same rows, same indexes (no Kafka, no dedup, no offsets): %.2f s = %.0f rows/s"
                        + " (before the writer %.0f, after it %.0f)%n",
                indexedCopy, n / indexedCopy, n / indexedCopyBefore, n / indexedCopyAfter);
        System.out.printf("baseline raw COPY, same rows, no indexes: %.2f s = %.0f rows/s%n", bareCopy, n / bareCopy);
        System.out.printf(
                "ratio writer / raw COPY (same indexes): %.2f; writer / raw COPY (no indexes): %.2f%n",
                writerRate / (n / indexedCopy), writerRate / (n / bareCopy));
    }

    private static double copySeconds(Database db, String csv, String table, boolean indexes) throws Exception {
        try (Connection conn = db.dataSource().getConnection();
                Statement st = conn.createStatement()) {
            st.execute("CREATE TABLE " + table + " (LIKE audit_events" + (indexes ? " INCLUDING INDEXES" : "") + ")");
            long start = System.nanoTime();
            conn.unwrap(PGConnection.class)
                    .getCopyAPI()
                    .copyIn(
                            "COPY " + table + " (id, agent_id, user_id, caller_id, "
                                    + "action, resource, parameters, result, reason, duration_ms, tokens_cost, ts, ip, user_agent) FROM "
                                    + "STDIN WITH (FORMAT csv)",
                            new StringReader(csv));
            return (System.nanoTime() - start) / 1e9;
        }
    }

    private static void query(Database db, long rows) throws Exception {
        try (Connection conn = db.dataSource().getConnection();
                Statement st = conn.createStatement()) {
            long start = System.nanoTime();
            st.execute("ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_update_delete");
            st.execute("INSERT INTO audit_events SELECT 'aud_q_' || g, 'agt_' || (g % 5000), 'usr_' || (g % 500), "
                    + "'admin', (ARRAY['read','write','delete','list'])[1 + g % 4], 'mcp:svc:' || (g % 1000), '{}'::jsonb, "
                    + "(ARRAY['allowed','allowed','allowed','denied','rate_limited'])[1 + g % 5], NULL, 0.1, 0, "
                    + "now() - (g % 2592000) * interval '1 second', NULL, NULL FROM generate_series(1, " + rows
                    + ") g");
            st.execute("ALTER TABLE audit_events ENABLE TRIGGER audit_events_no_update_delete");
            st.execute("ANALYZE audit_events");
            System.out.printf("loaded %d rows in %.1f s%n", rows, (System.nanoTime() - start) / 1e9);
        }
        Map<String, String> queries = new LinkedHashMap<>();
        queries.put("newest 100 (no filter)", "");
        queries.put("agentId", " WHERE agent_id = 'agt_42'");
        queries.put("userId + result", " WHERE user_id = 'usr_7' AND result = 'denied'");
        queries.put("actions + last 24h", " WHERE action = ANY('{delete,list}') AND ts >= now() - interval '1 day'");
        queries.put(
                "agentId + since/until",
                " WHERE agent_id = 'agt_42' AND ts >= now() - interval '7 days' "
                        + "AND ts < now() - interval '1 day'");
        queries.put("result only", " WHERE result = 'rate_limited'");
        queries.put("agentId, offset 900", " WHERE agent_id = 'agt_43' OFFSET 900");
        try (Connection conn = db.dataSource().getConnection()) {
            for (Map.Entry<String, String> q : queries.entrySet()) {
                String sql = "SELECT * FROM audit_events" + q.getValue().replace(" OFFSET 900", "")
                        + " ORDER BY ts DESC, id DESC LIMIT 100"
                        + (q.getValue().contains("OFFSET") ? " OFFSET 900" : "");
                List<Double> times = new ArrayList<>();
                for (int i = 0; i < 7; i++) {
                    long t = System.nanoTime();
                    try (PreparedStatement ps = conn.prepareStatement(sql);
                            ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            rs.getString(1);
                        }
                    }
                    times.add((System.nanoTime() - t) / 1e6);
                }
                times.sort(Double::compare);
                System.out.printf(
                        "query %-24s median %7.2f ms  (max %7.2f ms)%n", q.getKey(), times.get(3), times.getLast());
            }
        }
    }
}
