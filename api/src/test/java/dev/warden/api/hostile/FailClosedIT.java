package dev.warden.api.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.api.config.WardenConfig;
import dev.warden.launcher.WardenPlatform;
import dev.warden.launcher.embedded.EmbeddedKafka;
import dev.warden.testing.Http;
import dev.warden.testing.SharedInfra;
import dev.warden.testing.TestPlatform;
import java.nio.file.Path;
import java.time.Clock;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fail-closed through {@code POST /authorize}: when a decision cannot be audited (the broker is gone) or its
 * quota cannot be counted (no quota owner answers), the answer is 503 with {@code Retry-After}, never
 * {@code allowed: true}.
 */
class FailClosedIT {
    static SharedInfra infra;

    @RegisterExtension
    static final BeforeAllCallback SHARED = context -> infra = SharedInfra.get(context);

    /** An API without the quota role: constrained checks have nobody to ask. */
    @RegisterExtension
    static final TestPlatform apiOnly = new TestPlatform(b -> b.roles("api"));

    @Test
    void withTheBrokerGoneADecisionIsA503WithRetryAfterNeverAnAllowed() throws Exception {
        Path dir = SharedInfra.worldTraversableTempDir();
        String schema = "t" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        Path state = SharedInfra.worldTraversableTempDir();
        WardenConfig config = WardenConfig.builder().host("127.0.0.1").port(0).roles("api")
                .bootstrapToken("wdn_adm_closed_" + schema).pgSchema(schema).pgPoolSize(5)
                .streamsApplicationPrefix(schema + "-").streamsStateDir(state.toString()).build();
        EmbeddedKafka kafka = EmbeddedKafka.start(dir);
        try (WardenPlatform platform = WardenPlatform.start(config, kafka.bootstrap(), infra.jdbcUrl(), Clock.systemUTC())) {
            Http http = new Http(platform.baseUri());
            String admin = platform.adminToken();
            String agent = http.post("/agents", admin, "{\"ownerId\":\"rex\",\"name\":\"n\",\"type\":\"service\","
                    + "\"permissions\":[{\"resource\":\"*\",\"actions\":[\"*\"]}]}").json().get("id").asText();
            String body = "{\"agentId\":\"" + agent + "\",\"action\":\"read\",\"resource\":\"x:y\"}";
            assertThat(http.post("/authorize", admin, body).json().get("allowed").asBoolean()).isTrue();

            int brokerPort = kafka.brokerPort();
            int controllerPort = kafka.controllerPort();
            kafka.close();
            Http.Response res = http.post("/authorize", admin, body);

            assertThat(res.status()).as(res.body()).isEqualTo(503);
            assertThat(res.header("Retry-After")).isPresent();
            assertThat(res.body()).doesNotContain("\"allowed\"");
            kafka = EmbeddedKafka.start(dir, brokerPort, controllerPort); // so that the platform stops cleanly
        } finally {
            kafka.close();
            SharedInfra.deleteTree(dir);
            SharedInfra.deleteTree(state);
        }
    }

    @Test
    void withNoQuotaOwnerAnsweringAConstrainedCheckIsA503WithRetryAfter() {
        Http http = apiOnly.http();
        String admin = apiOnly.adminToken();
        String agent = http.post("/agents", admin, "{\"ownerId\":\"rex\",\"name\":\"n\",\"type\":\"service\","
                + "\"permissions\":[{\"resource\":\"x:*\",\"actions\":[\"read\"],\"constraints\":{\"maxCallsPerHour\":5}}]}")
                .json().get("id").asText();

        Http.Response res = http.post("/authorize", admin, "{\"agentId\":\"" + agent
                + "\",\"action\":\"read\",\"resource\":\"x:y\"}");

        assertThat(res.status()).as(res.body()).isEqualTo(503);
        assertThat(res.header("Retry-After")).isPresent();
        assertThat(res.json().get("code").asText()).isEqualTo("unavailable");
    }
}
