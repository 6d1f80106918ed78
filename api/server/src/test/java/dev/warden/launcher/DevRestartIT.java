package dev.warden.launcher;

import static dev.warden.testing.TestAgents.anAgent;
import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.api.config.WardenConfig;
import dev.warden.embedded.DevInfrastructure;
import dev.warden.testing.Http;
import dev.warden.testing.SharedInfra;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * {@code warden dev}'s embedded platform (in-process KRaft broker and PostgreSQL under one data dir) keeps
 * agents and topics across a restart, and its health reports every component.
 */
class DevRestartIT {
    static final Path DATA_DIR = SharedInfra.worldTraversableTempDir();

    @AfterAll
    static void cleanUp() {
        SharedInfra.deleteTree(DATA_DIR);
    }

    @Test
    void restartOfTheDevPlatformKeepsAgentsAndTheirTokens() {
        WardenConfig config = WardenConfig.builder()
                .host("127.0.0.1")
                .port(0)
                .bootstrapToken("wdn_adm_restart")
                .build();
        String id;
        String token;
        try (DevInfrastructure infra = DevInfrastructure.start(DATA_DIR, Optional.empty(), Optional.empty());
                WardenPlatform platform =
                        WardenPlatform.start(config, infra.kafkaBootstrap(), infra.jdbcUrl(), Clock.systemUTC())) {
            Http http = new Http(platform.baseUri());
            assertThat(platform.awaitHealthy(java.time.Duration.ofSeconds(90))).isTrue();
            Http.Response health = http.get("/observe/health", null);
            assertThat(health.status()).isEqualTo(200);
            assertThat(health.json()
                            .get("components")
                            .get("kafka")
                            .get("status")
                            .asText())
                    .isEqualTo("UP");
            assertThat(health.json().at("/components/api-consumers/status").asText())
                    .isEqualTo("UP");
            assertThat(health.json().at("/components/api-consumers/detail").asText())
                    .startsWith("consuming");
            Http.Response created =
                    http.post("/agents", platform.adminToken(), anAgent("hal").json());
            assertThat(created.status()).isEqualTo(201);
            id = created.json().get("id").asText();
            token = created.json().get("token").asText();
        }

        try (DevInfrastructure infra = DevInfrastructure.start(DATA_DIR, Optional.empty(), Optional.empty());
                WardenPlatform platform =
                        WardenPlatform.start(config, infra.kafkaBootstrap(), infra.jdbcUrl(), Clock.systemUTC())) {
            Http http = new Http(platform.baseUri());
            Http.Response read = http.get("/agents/" + id, token);
            assertThat(read.status()).isEqualTo(200);
            assertThat(read.json().get("ownerId").asText()).isEqualTo("hal");
            assertThat(platform.awaitHealthy(java.time.Duration.ofSeconds(90))).isTrue();
            assertThat(http.get("/observe/health", null).status()).isEqualTo(200);
            assertThat(http.get("/observe/live", null).status()).isEqualTo(200);
            // A Prometheus scrape of the dev platform shows the library's series next to Warden's own.
            String scrape = http.get("/observe/metrics", null).body();
            for (String series : java.util.List.of(
                    "http_server_requests_seconds_count{",
                    "warden_sink_lag_records{",
                    "warden_sse_connections ",
                    "jvm_memory_used_bytes{",
                    "hikaricp_connections_active{",
                    "kafka_producer_record_send_total{",
                    "kafka_consumer_fetch_manager_records_lag_max{")) {
                assertThat(scrape).as(series).contains(series);
            }
        }
    }
}
