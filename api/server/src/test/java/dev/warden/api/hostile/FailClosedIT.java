package dev.warden.api.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.api.oauth.OAuthDriver;
import dev.warden.testing.Http;
import dev.warden.testing.OwnBrokerPlatform;
import dev.warden.testing.SharedInfra;
import dev.warden.testing.TestPlatform;
import java.util.Map;
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
        try (OwnBrokerPlatform warden = new OwnBrokerPlatform(infra, "api")) {
            Http http = warden.http();
            String admin = warden.adminToken();
            String agent = http.post(
                            "/agents",
                            admin,
                            "{\"ownerId\":\"rex\",\"name\":\"n\",\"type\":\"service\","
                                    + "\"permissions\":[{\"resource\":\"*\",\"actions\":[\"*\"]}]}")
                    .json()
                    .get("id")
                    .asText();
            String body = "{\"agentId\":\"" + agent + "\",\"action\":\"read\",\"resource\":\"x:y\"}";
            assertThat(http.post("/authorize", admin, body)
                            .json()
                            .get("allowed")
                            .asBoolean())
                    .isTrue();

            warden.stopBroker();
            Http.Response res = http.post("/authorize", admin, body);

            assertThat(res.status()).as(res.body()).isEqualTo(503);
            assertThat(res.header("Retry-After")).isPresent();
            assertThat(res.body()).doesNotContain("\"allowed\"");
            warden.startBroker(); // so that the platform stops cleanly
        }
    }

    @Test
    void withTheBrokerGoneATokenForAnAgentIsA503WithRetryAfterNeverATokenWithoutItsEvent() throws Exception {
        try (OwnBrokerPlatform warden = new OwnBrokerPlatform(infra, "api")) {
            OAuthDriver driver = new OAuthDriver(warden.http());
            OAuthDriver.BoundAgent agent = driver.newBoundServiceAgent(warden.adminToken(), "svc");
            assertThat(driver.clientCredentials(agent.id(), agent.secret(), Map.of())
                            .status())
                    .isEqualTo(200);

            warden.stopBroker();
            Http.Response res = driver.clientCredentials(agent.id(), agent.secret(), Map.of());

            assertThat(res.status()).as(res.body()).isEqualTo(503);
            assertThat(res.header("Retry-After")).isPresent();
            assertThat(res.body()).doesNotContain("access_token");
            warden.startBroker(); // so that the platform stops cleanly
        }
    }

    @Test
    void withNoQuotaOwnerAnsweringAConstrainedCheckIsA503WithRetryAfter() {
        Http http = apiOnly.http();
        String admin = apiOnly.adminToken();
        String agent = http.post(
                        "/agents",
                        admin,
                        "{\"ownerId\":\"rex\",\"name\":\"n\",\"type\":\"service\","
                                + "\"permissions\":[{\"resource\":\"x:*\",\"actions\":[\"read\"],\"constraints\":{\"maxCallsPerHour\":5}}]}")
                .json()
                .get("id")
                .asText();

        Http.Response res = http.post(
                "/authorize", admin, "{\"agentId\":\"" + agent + "\",\"action\":\"read\",\"resource\":\"x:y\"}");

        assertThat(res.status()).as(res.body()).isEqualTo(503);
        assertThat(res.header("Retry-After")).isPresent();
        assertThat(res.json().get("code").asText()).isEqualTo("unavailable");
    }
}
