package dev.warden.api.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.launcher.WardenPlatform;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Read-your-writes from any instance: an {@code auditId} answered by one API instance is in the very next
 * {@code GET /audit} (and export) of the other, with no sleep in between, in both directions, every time.
 * Instance A runs every role (so the audit writer too); B runs the API role alone, on the same broker and database.
 */
class AuditAcrossInstancesIT {
    @RegisterExtension
    static final TestPlatform first = new TestPlatform();

    static WardenPlatform second;
    static Http a;
    static Http b;

    @BeforeAll
    static void secondInstance() {
        second = first.startAnother("b", config -> config.roles("api"));
        a = first.http();
        b = new Http(second.baseUri());
    }

    @AfterAll
    static void stop() {
        second.close();
    }

    @Test
    void aDecisionOnEitherInstanceIsInTheNextReadOfTheOther() {
        String admin = first.adminToken();
        String agent = a.post(
                        "/agents",
                        admin,
                        "{\"ownerId\":\"rya\",\"name\":\"r\",\"type\":\"autonomous\","
                                + "\"permissions\":[{\"resource\":\"doc:*\",\"actions\":[\"read\"]}]}")
                .json()
                .get("id")
                .asText();
        for (int round = 0; round < 20; round++) {
            Http decider = round % 2 == 0 ? b : a;
            Http reader = round % 2 == 0 ? a : b;
            String auditId = decider.post(
                            "/authorize",
                            admin,
                            "{\"agentId\":\"" + agent + "\",\"action\":\"read\"," + "\"resource\":\"doc:" + round
                                    + "\"}")
                    .json()
                    .get("auditId")
                    .asText();
            assertThat(reader.get("/audit?agentId=" + agent + "&limit=1", admin)
                            .json()
                            .get(0)
                            .get("id")
                            .asText())
                    .as("round " + round)
                    .isEqualTo(auditId);
            assertThat(reader.get("/audit/export?format=json", admin).body())
                    .as("export, round " + round)
                    .contains(auditId);
        }
    }
}
