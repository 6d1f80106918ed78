package dev.warden.api.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.api.config.WardenConfig;
import dev.warden.launcher.WardenPlatform;
import dev.warden.launcher.embedded.EmbeddedKafka;
import dev.warden.testing.DecisionLoad;
import dev.warden.testing.Http;
import dev.warden.testing.SharedInfra;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
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
        try (WardenPlatform platform = WardenPlatform.start(config, kafka.bootstrap(), infra.jdbcUrl(), Clock.systemUTC())) {
            Http http = new Http(platform.baseUri());
            String admin = platform.adminToken();
            String agent = http.post("/agents", admin, "{\"ownerId\":\"rex\",\"name\":\"n\",\"type\":\"service\","
                    + "\"permissions\":[{\"resource\":\"*\",\"actions\":[\"*\"]}]}").json().get("id").asText();
            Set<String> answered;
            try (DecisionLoad load = DecisionLoad.start(http, admin, agent, 4)) {
                Thread.sleep(1_500);
                int brokerPort = kafka.brokerPort();
                int controllerPort = kafka.controllerPort();
                kafka.close();
                Thread.sleep(1_500);
                kafka = EmbeddedKafka.start(dir, brokerPort, controllerPort);
                int atRestart = load.answered().size();
                Thread.sleep(3_000);
                assertThat(load.answered().size()).as("decisions resume after the restart").isGreaterThan(atRestart);
                load.close();
                answered = load.answered();
            }

            Map<String, Integer> stored = DecisionLoad.storedCounts(infra.jdbcUrl(), schema, answered,
                    Duration.ofSeconds(90));
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
}
