package dev.warden.api.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.launcher.WardenPlatform;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code GET /dashboard/stats} end to end: decisions, the pipeline's hourly windows, every API instance. */
class DashboardIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform();

    @Test
    void statsReflectDecisionsOnEveryInstanceAndPerUser() throws Exception {
        Http http = warden.http();
        String admin = warden.adminToken();
        String vera = http.post("/auth/tokens", admin, "{\"name\":\"t\",\"userId\":\"vera\"}")
                .json()
                .get("token")
                .asText();
        String busy = agent(http, admin, "vera", "busy-bot");
        String quiet = agent(http, admin, "walt", "quiet-bot");
        http.delete("/agents/" + agent(http, admin, "vera", "gone-bot"), admin);
        for (int i = 0; i < 6; i++) {
            decide(http, admin, busy, "read");
        }
        decide(http, admin, busy, "write");
        decide(http, admin, busy, "write");
        decide(http, admin, quiet, "read");
        decide(http, admin, quiet, "write");

        JsonNode stats = await(http, admin, 10);
        assertThat(stats.get("totalAgents").asLong()).isEqualTo(3);
        assertThat(stats.get("activeAgents").asLong()).isEqualTo(2);
        assertThat(stats.get("denialRateLast24h").asDouble()).isEqualTo(30.0);
        JsonNode top = stats.get("topAgentsByCallCount");
        assertThat(top.get(0).get("agentId").asText()).isEqualTo(busy);
        assertThat(top.get(0).get("name").asText()).isEqualTo("busy-bot");
        assertThat(top.get(0).get("callCount").asLong()).isEqualTo(8);
        assertThat(top.get(1).get("callCount").asLong()).isEqualTo(2);

        JsonNode mine = await(http, vera, 8);
        assertThat(mine.get("totalAgents").asLong()).isEqualTo(2);
        assertThat(mine.get("denialRateLast24h").asDouble()).isEqualTo(25.0);
        assertThat(mine.get("topAgentsByCallCount")).hasSize(1);

        try (WardenPlatform other = warden.startAnother("other", config -> config.roles("api"))) {
            JsonNode elsewhere = await(new Http(other.baseUri()), admin, 10);
            assertThat(elsewhere.get("denialRateLast24h").asDouble()).isEqualTo(30.0);
        }
    }

    static String agent(Http http, String admin, String owner, String name) {
        return http.post(
                        "/agents",
                        admin,
                        "{\"ownerId\":\"" + owner + "\",\"name\":\"" + name + "\",\"type\":\"service\","
                                + "\"permissions\":[{\"resource\":\"mcp:kb:*\",\"actions\":[\"read\"]}]}")
                .json()
                .get("id")
                .asText();
    }

    static void decide(Http http, String admin, String agent, String action) {
        assertThat(http.post(
                                "/authorize",
                                admin,
                                "{\"agentId\":\"" + agent + "\",\"action\":\"" + action
                                        + "\",\"resource\":\"mcp:kb:doc\"}")
                        .status())
                .isEqualTo(200);
    }

    static JsonNode await(Http http, String token, long entries) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        JsonNode stats = null;
        while (System.nanoTime() < deadline) {
            Http.Response res = http.get("/dashboard/stats", token);
            assertThat(res.status()).as(res.body()).isEqualTo(200);
            stats = res.json();
            if (stats.get("totalAuditEntries").asLong() >= entries) {
                return stats;
            }
            Thread.sleep(250);
        }
        throw new AssertionError("dashboard never reached " + entries + " entries: " + stats);
    }
}
