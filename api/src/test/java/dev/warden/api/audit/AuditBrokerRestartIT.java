package dev.warden.api.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.api.config.WardenConfig;
import dev.warden.launcher.WardenPlatform;
import dev.warden.launcher.embedded.EmbeddedKafka;
import dev.warden.testing.Http;
import dev.warden.testing.SharedInfra;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.BeforeAllCallback;

/**
 * The broker restarts while decisions flow: a decision that cannot be acknowledged fails closed (503, no
 * auditId; a short outage is usually bridged by the producer's retries), decisions resume afterwards, and
 * every auditId that was answered ends up in Postgres exactly once.
 */
class AuditBrokerRestartIT {
    static SharedInfra infra;

    @RegisterExtension
    static final BeforeAllCallback SHARED = context -> infra = SharedInfra.get(context);

    @Test
    void everyAnsweredDecisionIsStoredOnceAcrossABrokerRestart() throws Exception {
        Path dir = SharedInfra.worldTraversableTempDir();
        String schema = "t" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        Path state = SharedInfra.worldTraversableTempDir();
        WardenConfig config = WardenConfig.builder().host("127.0.0.1").port(0).roles("api,sinks")
                .bootstrapToken("wdn_adm_restart_" + schema).pgSchema(schema).pgPoolSize(5)
                .streamsApplicationPrefix(schema + "-").streamsStateDir(state.toString()).build();
        EmbeddedKafka kafka = EmbeddedKafka.start(dir);
        Set<String> answered = ConcurrentHashMap.newKeySet();
        try (WardenPlatform platform = WardenPlatform.start(config, kafka.bootstrap(), infra.jdbcUrl(), Clock.systemUTC())) {
            Http http = new Http(platform.baseUri());
            String admin = platform.adminToken();
            String agent = http.post("/agents", admin, "{\"ownerId\":\"rex\",\"name\":\"n\",\"type\":\"service\","
                    + "\"permissions\":[{\"resource\":\"*\",\"actions\":[\"*\"]}]}").json().get("id").asText();
            AtomicBoolean flowing = new AtomicBoolean(true);
            ExecutorService clients = Executors.newFixedThreadPool(4);
            for (int c = 0; c < 4; c++) {
                clients.execute(() -> {
                    while (flowing.get()) {
                        Http.Response res = http.post("/authorize", admin, "{\"agentId\":\"" + agent
                                + "\",\"action\":\"read\",\"resource\":\"x:y\"}");
                        if (res.status() == 200) {
                            answered.add(res.json().get("auditId").asText());
                        }
                    }
                });
            }
            Thread.sleep(1_500);
            int brokerPort = kafka.brokerPort();
            int controllerPort = kafka.controllerPort();
            kafka.close();
            Thread.sleep(1_500);
            kafka = EmbeddedKafka.start(dir, brokerPort, controllerPort);
            int atRestart = answered.size();
            Thread.sleep(3_000);
            assertThat(answered.size()).as("decisions resume after the restart").isGreaterThan(atRestart);
            flowing.set(false);
            clients.shutdown();
            assertThat(clients.awaitTermination(60, TimeUnit.SECONDS)).isTrue();

            Map<String, Integer> stored = waitForAll(schema, answered, Duration.ofSeconds(90));
            assertThat(answered).hasSizeGreaterThan(20);
            assertThat(stored.keySet()).containsAll(answered);
            assertThat(stored.values()).allMatch(n -> n == 1);
        } finally {
            kafka.close();
            try (Connection conn = DriverManager.getConnection(infra.jdbcUrl()); Statement st = conn.createStatement()) {
                st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            }
            SharedInfra.deleteTree(dir);
            SharedInfra.deleteTree(state);
        }
    }

    private static Map<String, Integer> waitForAll(String schema, Set<String> ids, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, Integer> counts = new HashMap<>();
        while (System.nanoTime() < deadline) {
            counts = new HashMap<>();
            try (Connection conn = DriverManager.getConnection(infra.jdbcUrl()); Statement st = conn.createStatement()) {
                st.execute("SET search_path TO " + schema);
                try (ResultSet rs = st.executeQuery("SELECT id, count(*) FROM audit_events GROUP BY id")) {
                    while (rs.next()) {
                        counts.put(rs.getString(1), rs.getInt(2));
                    }
                }
            }
            if (counts.keySet().containsAll(ids)) {
                return counts;
            }
            Thread.sleep(250);
        }
        return counts;
    }
}
