package dev.warden.api.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A bound agent's client is remembered per agent version (D190), and for a minute at most: binding and moving the
 * version are two transactions, so a process stopped between them leaves the binding changed at the old version;
 * the next read after the minute sees the row as it is. (Every change made through the API moves the version at
 * once: {@code MultiInstanceIT} and {@code AgentTokensIT}.) Its own platform: the test moves the clock.
 */
class BoundAgentClientsIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform();

    @Test
    void aBindingChangedWithoutMovingTheAgentsVersionIsSeenWithinAMinute() {
        Http http = warden.http();
        String admin = warden.adminToken();
        Http.Response created = http.post(
                "/agents",
                admin,
                "{\"ownerId\":\"quinn\",\"name\":\"svc\",\"type\":\"service\","
                        + "\"permissions\":[{\"resource\":\"agents\",\"actions\":[\"read\"]}]}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String id = created.json().get("id").asText();
        String secret = created.json().get("token").asText();
        assertThat(http.post("/agents/" + id + "/oauth-client", admin).status()).isEqualTo(201);
        assertThat(clientCredentials(http, id, secret)).isEqualTo(200);

        // The row gone as a stopped process leaves it: the agent's version has not moved.
        assertThat(warden.execute("DELETE FROM oauth_agent_clients WHERE agent_id = ?", id))
                .isEqualTo(1);
        assertThat(clientCredentials(http, id, secret))
                .as("remembered at the same version")
                .isEqualTo(200);
        warden.clock().advance(Duration.ofSeconds(61));
        assertThat(clientCredentials(http, id, secret))
                .as("read again after a minute")
                .isEqualTo(401);
    }

    private static int clientCredentials(Http http, String id, String secret) {
        String basic =
                "Basic " + Base64.getEncoder().encodeToString((id + ":" + secret).getBytes(StandardCharsets.UTF_8));
        return http.send(http.builder("/oauth/token", null)
                        .header("Authorization", basic)
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .POST(HttpRequest.BodyPublishers.ofString("grant_type=client_credentials")))
                .status();
    }
}
