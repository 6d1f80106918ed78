package dev.warden.api.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.testing.DecisionLoad;
import dev.warden.testing.Http;
import dev.warden.testing.OwnBrokerPlatform;
import dev.warden.testing.SharedInfra;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.RegisterExtension;

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
        try (OwnBrokerPlatform warden = new OwnBrokerPlatform(infra, "api,sinks")) {
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
            Set<String> answered;
            try (DecisionLoad load = DecisionLoad.start(http, admin, agent, 4)) {
                Thread.sleep(1_500);
                warden.stopBroker();
                Thread.sleep(1_500);
                warden.startBroker();
                int atRestart = load.answered().size();
                Thread.sleep(3_000);
                assertThat(load.answered().size())
                        .as("decisions resume after the restart")
                        .isGreaterThan(atRestart);
                load.close();
                answered = load.answered();
            }

            Map<String, Integer> stored =
                    DecisionLoad.storedCounts(infra.jdbcUrl(), warden.schema(), answered, Duration.ofSeconds(90));
            assertThat(answered).hasSizeGreaterThan(20);
            assertThat(stored.keySet()).containsAll(answered);
            assertThat(stored.values()).allMatch(n -> n == 1);
        }
    }
}
