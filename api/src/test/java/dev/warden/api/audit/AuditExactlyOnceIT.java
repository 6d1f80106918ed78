package dev.warden.api.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.launcher.roles.SinksRole;
import dev.warden.api.db.Database;
import dev.warden.sinks.runtime.SinkCounters;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Exactly once into Postgres: while decisions flow, the writer is killed and restarted several times and
 * once loses its stored offsets (forcing Kafka to redeliver everything); afterwards every auditId that
 * {@code /authorize} returned is in {@code audit_events} exactly once.
 */
class AuditExactlyOnceIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b -> b.roles("api,quota"));

    @Test
    void everyReturnedAuditIdIsStoredExactlyOnceAcrossWriterCrashesAndRedelivery() throws Exception {
        Http http = warden.http();
        String admin = warden.adminToken();
        String agent = http.post("/agents", admin, "{\"ownerId\":\"ulf\",\"name\":\"n\",\"type\":\"service\","
                + "\"permissions\":[{\"resource\":\"*\",\"actions\":[\"*\"]}]}").json().get("id").asText();
        Set<String> returned = ConcurrentHashMap.newKeySet();
        AtomicBoolean flowing = new AtomicBoolean(true);
        ExecutorService clients = Executors.newFixedThreadPool(4);
        for (int c = 0; c < 4; c++) {
            clients.execute(() -> {
                while (flowing.get()) {
                    Http.Response res = http.post("/authorize", admin, "{\"agentId\":\"" + agent
                            + "\",\"action\":\"read\",\"resource\":\"x:y\"}");
                    if (res.status() == 200) {
                        returned.add(res.json().get("auditId").asText());
                    }
                }
            });
        }
        try (Database db = Database.connect(warden.infra().jdbcUrl(), warden.config().postgres())) {
            SinkCounters counters = new SinkCounters();
            for (int round = 0; round < 4; round++) {
                SinksRole writer = SinksRole.start(warden.config(), warden.infra().kafkaBootstrap(), db, List.of(),
                        counters, Clock.systemUTC());
                Thread.sleep(700);
                writer.close();
                if (round == 1) {
                    forgetStoredOffsets();
                }
            }
            flowing.set(false);
            clients.shutdown();
            assertThat(clients.awaitTermination(30, TimeUnit.SECONDS)).isTrue();

            try (SinksRole writer = SinksRole.start(warden.config(), warden.infra().kafkaBootstrap(), db, List.of(),
                    counters, Clock.systemUTC())) {
                Map<String, Integer> stored = waitForAll(returned);
                assertThat(returned).hasSizeGreaterThan(50);
                assertThat(stored.keySet()).containsAll(returned);
                assertThat(stored.values()).allMatch(n -> n == 1);
                assertThat(writer).isNotNull();
            }
        }
    }

    private static void forgetStoredOffsets() throws Exception {
        try (Connection conn = DriverManager.getConnection(warden.infra().jdbcUrl());
             Statement st = conn.createStatement()) {
            st.execute("SET search_path TO " + warden.config().postgres().schema().orElseThrow());
            st.executeUpdate("UPDATE sink_offsets SET next_offset = 0");
        }
    }

    private static Map<String, Integer> waitForAll(Set<String> ids) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Map<String, Integer> counts = Map.of();
        while (System.nanoTime() < deadline) {
            counts = countStored();
            if (counts.keySet().containsAll(ids)) {
                return counts;
            }
            Thread.sleep(200);
        }
        return counts;
    }

    private static Map<String, Integer> countStored() throws Exception {
        Map<String, Integer> counts = new ConcurrentHashMap<>();
        try (Connection conn = DriverManager.getConnection(warden.infra().jdbcUrl())) {
            try (Statement st = conn.createStatement()) {
                st.execute("SET search_path TO " + warden.config().postgres().schema().orElseThrow());
            }
            try (PreparedStatement ps = conn.prepareStatement("SELECT id, count(*) FROM audit_events GROUP BY id");
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    counts.put(rs.getString(1), rs.getInt(2));
                }
            }
        }
        return counts;
    }
}
