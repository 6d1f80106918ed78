package dev.warden.api.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.api.oauth.OAuthConfig;
import dev.warden.launcher.WardenPlatform;
import dev.warden.pipeline.contract.Json;
import dev.warden.testing.Http;
import dev.warden.testing.TestAgents;
import dev.warden.testing.TestPlatform;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code GET /admin/v1/doctor} on running platforms: the report's shape, who may read it, and findings made
 * from configuration (a weak bootstrap token, anonymous registration), from this process's counters (forwarding
 * headers) and from the heartbeat of a second instance on the same database.
 */
class DoctorIT {
    static final String PATH = "/admin/v1/doctor";
    static final String WEAK_TOKEN = "changeme123";

    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b -> b.roles("api"));

    @RegisterExtension
    static final TestPlatform weak = new TestPlatform(b -> b.roles("api")
            .bootstrapToken(WEAK_TOKEN)
            .oauth(OAuthConfig.builder().allowAnonymousRegistration(true).build()));

    static List<String> ids(Http.Response res) {
        assertThat(res.status()).as(res.body()).isEqualTo(200);
        return res.json().get("findings").findValuesAsText("id");
    }

    @Test
    void theAdministratorGetsTheReportInItsDocumentedShape() {
        Http.Response res = warden.http().get(PATH, warden.adminToken());

        assertThat(res.status()).as(res.body()).isEqualTo(200);
        assertThat(res.header("Content-Type").orElseThrow()).startsWith("application/json");
        JsonNode body = res.json();
        assertThat(body.fieldNames()).toIterable().containsExactly("generatedAt", "findings", "counts");
        assertThat(Json.parseTimestamp(body.get("generatedAt").asText())).isNotNull();
        List<String> severities = new ArrayList<>();
        for (JsonNode finding : body.get("findings")) {
            assertThat(finding.fieldNames()).toIterable().containsExactly("id", "severity", "title", "detail", "fix");
            severities.add(finding.get("severity").asText());
        }
        assertThat(severities).isSortedAccordingTo((a, b) -> Integer.compare(rank(a), rank(b)));
        JsonNode counts = body.get("counts");
        assertThat(counts.fieldNames()).toIterable().containsExactlyInAnyOrder("critical", "warning", "info");
        for (String severity : List.of("critical", "warning", "info")) {
            assertThat(counts.get(severity).asLong())
                    .as(severity)
                    .isEqualTo(severities.stream().filter(severity::equals).count());
        }
    }

    @Test
    void aUserOrAnAgentIsRefusedAndACallerWithoutATokenIsUnauthenticated() {
        Http http = warden.http();
        String admin = warden.adminToken();
        String user = http.post("/auth/tokens", admin, "{\"name\":\"t\",\"userId\":\"rita\"}")
                .json()
                .get("token")
                .asText();
        String agent = http.post("/agents", admin, TestAgents.anAgent("rita").json())
                .json()
                .get("token")
                .asText();

        assertThat(http.get(PATH, user).status()).isEqualTo(403);
        assertThat(http.get(PATH, agent).status()).isEqualTo(403);
        assertThat(http.get(PATH, null).status()).isEqualTo(401);
    }

    @Test
    void aWeakConfiguredTokenAndAnonymousRegistrationAreFoundAndTheTokenIsNeverShown() {
        Http.Response res = weak.http().get(PATH, WEAK_TOKEN);

        assertThat(ids(res)).contains("bootstrap-token-weak", "anonymous-registration-on");
        assertThat(res.body()).doesNotContain(WEAK_TOKEN).doesNotContain("changeme");
    }

    @Test
    void forwardingHeadersSentWhileNoProxyIsTrustedAreFound() {
        Http http = warden.http();
        Http.Response signIn = http.send(http.builder("/auth/sign-in", null)
                .header("Content-Type", "application/json")
                .header("X-Forwarded-For", "203.0.113.9")
                .POST(HttpRequest.BodyPublishers.ofString("{\"username\":\"nobody_here\",\"password\":\"whatever\"}")));
        assertThat(signIn.status()).as(signIn.body()).isIn(401, 429);

        assertThat(ids(http.get(PATH, warden.adminToken()))).contains("forwarded-headers-untrusted");
    }

    @Test
    void aSecondApiInstanceOnTheSameDatabaseMakesTheMemoryRateLimitStoreAFinding() throws InterruptedException {
        try (WardenPlatform second = warden.startAnother("b")) {
            Http onSecond = new Http(second.baseUri());
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            List<String> found = ids(onSecond.get(PATH, second.adminToken()));
            while (!found.contains("rate-limit-store-memory-multi-instance") && System.nanoTime() < deadline) {
                Thread.sleep(200);
                found = ids(onSecond.get(PATH, second.adminToken()));
            }

            assertThat(found).contains("rate-limit-store-memory-multi-instance");
        }
    }

    private static int rank(String severity) {
        return List.of("critical", "warning", "info").indexOf(severity);
    }
}
