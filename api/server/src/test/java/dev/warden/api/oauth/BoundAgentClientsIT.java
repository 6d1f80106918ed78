package dev.warden.api.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.testing.TestPlatform;
import java.time.Duration;
import java.util.Map;
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
        OAuthDriver driver = new OAuthDriver(warden.http());
        OAuthDriver.BoundAgent svc = driver.newBoundServiceAgent(warden.adminToken(), "svc");
        assertThat(driver.clientCredentials(svc.id(), svc.secret(), Map.of()).status())
                .isEqualTo(200);

        // The row gone as a stopped process leaves it: the agent's version has not moved.
        assertThat(warden.execute("DELETE FROM oauth_agent_clients WHERE agent_id = ?", svc.id()))
                .isEqualTo(1);
        assertThat(driver.clientCredentials(svc.id(), svc.secret(), Map.of()).status())
                .as("remembered at the same version")
                .isEqualTo(200);
        warden.clock().advance(Duration.ofSeconds(61));
        assertThat(driver.clientCredentials(svc.id(), svc.secret(), Map.of()).status())
                .as("read again after a minute")
                .isEqualTo(401);
    }
}
