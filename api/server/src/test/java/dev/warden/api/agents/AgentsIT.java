package dev.warden.api.agents;

import static dev.warden.testing.TestAgents.anAgent;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The agent endpoints through real HTTP (SPEC: Agents, States and transitions). */
class AgentsIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b -> b.maxBodyBytes(64 * 1024));

    static Http http;
    static String admin;
    static String alice;
    static String bob;

    @BeforeAll
    static void users() {
        http = warden.http();
        admin = warden.adminToken();
        alice = apiToken("alice");
        bob = apiToken("bob");
    }

    static String apiToken(String userId) {
        return warden.apiToken(userId);
    }

    static JsonNode create(String token, String body) {
        Http.Response res = http.post("/agents", token, body);
        assertThat(res.status()).as(res.body()).isEqualTo(201);
        return res.json();
    }

    @Test
    void createReturnsActiveAgentWithTokenAndNormalisedExpiry() {
        JsonNode agent = create(
                alice, anAgent("alice").expiresAt("2099-01-02T03:04:05+01:00").json());

        assertThat(agent.get("id").asText()).startsWith("agt_");
        assertThat(agent.get("status").asText()).isEqualTo("active");
        assertThat(agent.get("token").asText()).startsWith("wdn_agt_").hasSizeGreaterThan(40);
        assertThat(agent.get("expiresAt").asText()).isEqualTo("2099-01-02T02:04:05.000Z");
        assertThat(agent.get("createdAt").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
        assertThat(agent.get("permissions").get(0).get("resource").asText()).isEqualTo("mcp:github:*");

        Http.Response read = http.get("/agents/" + agent.get("id").asText(), alice);
        assertThat(read.status()).isEqualTo(200);
        assertThat(read.json().has("token")).isFalse();
        assertThat(read.json().get("name").asText()).isEqualTo("research-bot");
    }

    @Test
    void createWithBadFieldsAnswers400NamingEveryFieldAndStoresNothing() {
        int before = http.get("/agents", admin).json().size();
        Http.Response res = http.post("/agents", admin, """
                {"ownerId":"alice","name":42,"type":"robot","extra":true,
                 "permissions":[{"resource":"mcp:*:x","actions":["read"]},{"resource":"a","actions":[]}],
                 "expiresAt":"tomorrow"}""");

        assertThat(res.status()).isEqualTo(400);
        assertThat(res.header("Content-Type")).hasValue("application/problem+json");
        assertThat(res.json().get("code").asText()).isEqualTo("validation_invalid");
        assertThat(fields(res.json()))
                .containsExactlyInAnyOrder(
                        "name", "type", "extra", "permissions[0].resource", "permissions[1].actions", "expiresAt");
        assertThat(http.get("/agents", admin).json().size()).isEqualTo(before);
    }

    @Test
    void malformedJsonWrongTypeAndOversizedBodiesAre4xxNever500() {
        assertThat(http.post("/agents", admin, "{\"ownerId\": ")
                        .json()
                        .get("code")
                        .asText())
                .isEqualTo("malformed_json");
        assertThat(http.post("/agents", admin, "[1,2]").status()).isEqualTo(400);
        assertThat(http.post(
                                "/agents",
                                admin,
                                "{\"ownerId\":\"a\",\"name\":\"n\",\"type\":\"service\"," + "\"permissions\":{}}")
                        .json()
                        .get("errors")
                        .get(0)
                        .get("field")
                        .asText())
                .isEqualTo("permissions");
        assertThat(http.send(http.builder("/agents", admin)
                                .header("Content-Type", "text/plain")
                                .POST(HttpRequest.BodyPublishers.ofString("{}")))
                        .status())
                .isEqualTo(415);
        String huge = anAgent("alice")
                .name("x".repeat(100))
                .json()
                .replace("\"name\"", "\"pad\":\"" + "y".repeat(70_000) + "\",\"name\"");
        Http.Response tooLarge = http.post("/agents", admin, huge);
        assertThat(tooLarge.status()).isEqualTo(413);
        assertThat(tooLarge.json().get("code").asText()).isEqualTo("payload_too_large");

        // Without Content-Length (chunked), the body is still bounded while it is read, and a small one is read whole.
        Http.Response chunkedTooLarge = http.send(http.builder("/agents", admin)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() ->
                        new java.io.ByteArrayInputStream(huge.getBytes(java.nio.charset.StandardCharsets.UTF_8)))));
        assertThat(chunkedTooLarge.status()).isEqualTo(413);
        String small = anAgent("alice").name("chunked").json();
        Http.Response chunkedSmall = http.send(http.builder("/agents", admin)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() ->
                        new java.io.ByteArrayInputStream(small.getBytes(java.nio.charset.StandardCharsets.UTF_8)))));
        assertThat(chunkedSmall.status()).isEqualTo(201);
        assertThat(chunkedSmall.json().get("name").asText()).isEqualTo("chunked");
    }

    @Test
    void missingOrInvalidTokenAnswers401WithBearerChallenge() {
        Http.Response missing = http.get("/agents", null);
        assertThat(missing.status()).isEqualTo(401);
        // RFC 9728: the challenge points at the REST API's protected-resource metadata
        assertThat(missing.header("WWW-Authenticate").orElseThrow())
                .startsWith("Bearer resource_metadata=\"")
                .endsWith("/.well-known/oauth-protected-resource\", scope=\"agents:read\"");
        Http.Response invalid = http.get("/agents", "wdn_api_not-a-real-token");
        assertThat(invalid.status()).isEqualTo(401);
        assertThat(invalid.header("WWW-Authenticate").orElseThrow()).contains("invalid_token");
        assertThat(invalid.json().get("code").asText()).isEqualTo("unauthorized");
    }

    @Test
    void userMayCreateAgentsOnlyForThemselves() {
        Http.Response res = http.post("/agents", alice, anAgent("bob").json());
        assertThat(res.status()).isEqualTo(403);
        assertThat(fields(res.json())).containsExactly("ownerId");
        assertThat(create(admin, anAgent("bob").json()).get("ownerId").asText()).isEqualTo("bob");
    }

    @Test
    void anotherUsersAgentIsNotFoundForReadWriteAndLifecycle() {
        String id = create(alice, anAgent("alice").json()).get("id").asText();

        assertThat(http.get("/agents/" + id, bob).status()).isEqualTo(404);
        assertThat(http.patch("/agents/" + id, bob, "{\"name\":\"stolen\"}").status())
                .isEqualTo(404);
        assertThat(http.delete("/agents/" + id, bob).status()).isEqualTo(404);
        assertThat(http.post("/agents/" + id + "/rotate", bob).status()).isEqualTo(404);
        assertThat(http.post("/agents/" + id + "/suspend", bob).status()).isEqualTo(404);
        assertThat(http.get("/agents", bob).json().findValuesAsText("id")).doesNotContain(id);
        assertThat(http.get("/agents/" + id, alice).json().get("name").asText()).isEqualTo("research-bot");
    }

    @Test
    void listReturnsCallersAgentsFilteredByStatusTypeAndTenant() {
        String carol = apiToken("carol");
        String a = create(carol, anAgent("carol").type("service").tenant("acme").json())
                .get("id")
                .asText();
        String b = create(
                        carol,
                        anAgent("carol").type("delegated").tenant("globex").json())
                .get("id")
                .asText();
        assertThat(http.delete("/agents/" + b, carol).status()).isEqualTo(204);

        assertThat(ids(http.get("/agents", carol))).containsExactlyInAnyOrder(a, b);
        assertThat(ids(http.get("/agents?status=revoked", carol))).containsExactly(b);
        assertThat(ids(http.get("/agents?status=active", carol))).containsExactly(a);
        assertThat(ids(http.get("/agents?type=service", carol))).containsExactly(a);
        assertThat(ids(http.get("/agents?tenantId=globex", carol))).containsExactly(b);
        assertThat(ids(http.get("/agents", admin))).contains(a, b);
        Http.Response bad = http.get("/agents?status=sleeping", carol);
        assertThat(bad.status()).isEqualTo(400);
        assertThat(fields(bad.json())).containsExactly("status");
    }

    @Test
    void agentTokenReadsItsOwnRecordAndNothingElse() {
        JsonNode self = create(alice, anAgent("alice").json());
        String other = create(alice, anAgent("alice").json()).get("id").asText();
        String token = self.get("token").asText();
        String id = self.get("id").asText();

        assertThat(http.get("/agents/" + id, token).status()).isEqualTo(200);
        assertThat(http.get("/agents/" + other, token).status()).isEqualTo(404);
        assertThat(ids(http.get("/agents", token))).containsExactly(id);
        assertThat(http.patch("/agents/" + id, token, "{\"name\":\"me\"}").status())
                .isEqualTo(403);
        assertThat(http.post("/agents", token, anAgent("alice").json()).status())
                .isEqualTo(403);
    }

    @Test
    void rotateIssuesNewTokenAndThePreviousStopsAtOnce() {
        JsonNode agent = create(alice, anAgent("alice").json());
        String id = agent.get("id").asText();
        String oldToken = agent.get("token").asText();

        Http.Response rotated = http.post("/agents/" + id + "/rotate", alice);
        assertThat(rotated.status()).isEqualTo(200);
        String newToken = rotated.json().get("token").asText();
        assertThat(newToken).startsWith("wdn_agt_").isNotEqualTo(oldToken);
        assertThat(rotated.json().get("status").asText()).isEqualTo("active");
        assertThat(http.get("/agents/" + id, oldToken).status()).isEqualTo(401);
        assertThat(http.get("/agents/" + id, newToken).status()).isEqualTo(200);
    }

    @Test
    void revocationIsPermanent() {
        JsonNode agent = create(alice, anAgent("alice").json());
        String id = agent.get("id").asText();

        Http.Response revoked = http.delete("/agents/" + id, alice);
        assertThat(revoked.status()).isEqualTo(204);
        assertThat(revoked.body()).isEmpty();
        assertThat(http.get("/agents/" + id, alice).json().get("status").asText())
                .isEqualTo("revoked");
        assertThat(http.get("/agents/" + id, agent.get("token").asText()).status())
                .isEqualTo(401);
        Http.Response patch = http.patch("/agents/" + id, alice, "{\"name\":\"back\"}");
        assertThat(patch.status()).isEqualTo(409);
        assertThat(patch.json().get("code").asText()).isEqualTo("agent_inactive");
        assertThat(http.post("/agents/" + id + "/rotate", alice).status()).isEqualTo(409);
        assertThat(http.post("/agents/" + id + "/resume", alice).status()).isEqualTo(409);
        assertThat(http.delete("/agents/" + id, alice).status()).isEqualTo(204);
        assertThat(http.get("/agents/" + id, alice).json().get("status").asText())
                .isEqualTo("revoked");
    }

    @Test
    void agentPastExpiryReadsExpiredAndItsTokenStopsWorking() {
        Instant soon = warden.clock().instant().plus(Duration.ofHours(1));
        JsonNode agent =
                create(alice, anAgent("alice").expiresAt(soon.toString()).json());
        String id = agent.get("id").asText();
        String token = agent.get("token").asText();
        assertThat(http.get("/agents/" + id, token).status()).isEqualTo(200);

        warden.clock().advance(Duration.ofHours(2));
        try {
            assertThat(http.get("/agents/" + id, alice).json().get("status").asText())
                    .isEqualTo("expired");
            assertThat(http.get("/agents/" + id, token).status()).isEqualTo(401);
            assertThat(ids(http.get("/agents?status=expired", alice))).contains(id);
            assertThat(http.post("/agents/" + id + "/rotate", alice).status()).isEqualTo(409);
        } finally {
            warden.clock().advance(Duration.ofHours(-2));
        }
    }

    @Test
    void suspendBarsTheTokenUntilResume() {
        JsonNode agent = create(alice, anAgent("alice").json());
        String id = agent.get("id").asText();
        String token = agent.get("token").asText();

        Http.Response suspended = http.post("/agents/" + id + "/suspend", alice);
        assertThat(suspended.json().get("status").asText()).isEqualTo("suspended");
        assertThat(http.get("/agents/" + id, token).status()).isEqualTo(401);
        assertThat(http.post("/agents/" + id + "/suspend", alice).status()).isEqualTo(200);

        assertThat(http.post("/agents/" + id + "/resume", alice)
                        .json()
                        .get("status")
                        .asText())
                .isEqualTo("active");
        assertThat(http.get("/agents/" + id, token).status()).isEqualTo(200);
    }

    @Test
    void patchChangesOnlyTheGivenFieldsAndNullClearsExpiry() {
        JsonNode agent =
                create(alice, anAgent("alice").expiresAt("2099-01-01T00:00:00Z").json());
        String id = agent.get("id").asText();

        Http.Response res = http.patch("/agents/" + id, alice, """
                {"name":"renamed","expiresAt":null,"metadata":{"team":"red"},
                 "permissions":[{"resource":"*","actions":["*"],"constraints":{"maxCallsPerHour":5}}]}""");
        assertThat(res.status()).as(res.body()).isEqualTo(200);
        assertThat(res.json().get("name").asText()).isEqualTo("renamed");
        assertThat(res.json().get("expiresAt").isNull()).isTrue();
        assertThat(res.json().get("type").asText()).isEqualTo("autonomous");
        assertThat(res.json().get("metadata").get("team").asText()).isEqualTo("red");
        assertThat(res.json()
                        .get("permissions")
                        .get(0)
                        .get("constraints")
                        .get("maxCallsPerHour")
                        .asInt())
                .isEqualTo(5);

        Http.Response bad = http.patch("/agents/" + id, alice, "{\"name\":null,\"status\":\"active\"}");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(fields(bad.json())).containsExactlyInAnyOrder("name", "status");
        assertThat(http.get("/agents/" + id, alice).json().get("name").asText()).isEqualTo("renamed");
    }

    @Test
    void unknownAgentIs404AndMalformedIdIs400() {
        Http.Response missing = http.get("/agents/agt_doesnotexist", admin);
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.json().get("code").asText()).isEqualTo("agent_not_found");
        assertThat(http.get("/agents/bad%20id", admin).status()).isEqualTo(400);
        assertThat(http.get("/no-such-route", admin).json().get("code").asText())
                .isEqualTo("not_found");
    }

    private static List<String> fields(JsonNode problem) {
        List<String> fields = new ArrayList<>();
        problem.path("errors").forEach(e -> fields.add(e.get("field").asText()));
        return fields;
    }

    private static List<String> ids(Http.Response res) {
        assertThat(res.status()).as(res.body()).isEqualTo(200);
        List<String> ids = new ArrayList<>();
        res.json().forEach(a -> ids.add(a.get("id").asText()));
        return ids;
    }
}
