package dev.warden.api.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.api.users.UsersConfig;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Each case of the edge contract through real HTTP (docs/errors.md, "What the edge refuses"): the values that
 * used to stall the audit writer, poison later reads or wrap silently are refused with a 400 naming the field
 * and change nothing, and the abuse limits hold.
 */
class EdgeContractIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(
            b -> b.users(UsersConfig.builder().argon2(1024, 1, 1).build()));

    static Http http;
    static String admin;
    static String alice;
    static String agentId;
    static String agentToken;

    @BeforeAll
    static void fixtures() {
        http = warden.http();
        admin = warden.adminToken();
        alice = http.post("/auth/tokens", admin, "{\"name\":\"t\",\"userId\":\"alice\"}")
                .json()
                .get("token")
                .asText();
        JsonNode agent = http.post("/agents", alice, """
                {"ownerId":"alice","name":"n","type":"autonomous",
                 "permissions":[{"resource":"*","actions":["*"]}]}""").json();
        agentId = agent.get("id").asText();
        agentToken = agent.get("token").asText();
    }

    static List<String> fields(Http.Response res) {
        List<String> out = new ArrayList<>();
        res.json().path("errors").forEach(e -> out.add(e.get("field").asText()));
        return out;
    }

    static void assertRefused(Http.Response res, String... fields) {
        assertThat(res.status()).as(res.body()).isEqualTo(400);
        assertThat(res.header("Content-Type")).hasValue("application/problem+json");
        assertThat(fields(res)).containsExactlyInAnyOrder(fields);
    }

    @Test
    void aNulInDecisionArgumentsIsA400NamingTheFieldAndNoDecisionIsMade() throws Exception {
        Http.Response res = http.post("/authorize", agentToken, """
                {"agentId":"%s","action":"read","resource":"x:y","arguments":{"x":"a\\u0000b","ok":"fine"}}""".formatted(agentId));

        assertRefused(res, "arguments.x");
        assertThat(res.json().at("/errors/0/message").asText()).contains("U+0000");
        String later = http.post(
                        "/authorize",
                        agentToken,
                        "{\"agentId\":\"" + agentId + "\",\"action\":\"read\",\"resource\":\"x:later\"}")
                .json()
                .get("auditId")
                .asText();
        JsonNode entries = awaitAudit(later);
        assertThat(entries.toString()).doesNotContain("a\\u0000b");
    }

    @Test
    void aNulOrLoneSurrogateAnywhereIsRefusedKeysIncluded() {
        assertRefused(
                http.post("/agents/" + agentId + "/costs", agentToken, "{\"tool\":\"a\\u0000b\",\"costUsd\":1}"),
                "tool");
        assertRefused(http.post("/agents", alice, """
                {"ownerId":"alice","name":"\\ud800","type":"service","permissions":[],"metadata":{"a\\u0000":1}}"""), "name", "metadata.a\uFFFD");
        assertRefused(http.post("/webhooks", alice, """
                {"url":"https://hooks.example.com/x","description":"x\\udc00"}"""), "description");
        assertRefused(http.post("/auth/tokens", admin, "{\"name\":\"a\\u0000\",\"userId\":\"bob\"}"), "name");
        assertRefused(http.post("/auth/sign-up", null, """
                {"username":"sam","password":"a long passphrase","displayName":"\\u0000","email":"s\\u0000@x.io"}"""), "displayName", "email");
    }

    @Test
    void numbersBeyondTheDoubleRangeAreRefusedAndReadsStayWhole() {
        int before = http.get("/agents", alice).json().size();
        assertRefused(http.post("/agents", alice, """
                {"ownerId":"alice","name":"n","type":"service","permissions":[],"metadata":{"n":1e400,"m":-1e400}}"""), "metadata.n", "metadata.m");
        assertRefused(http.post("/agents", alice, """
                {"ownerId":"alice","name":"n","type":"service","permissions":[],
                 "budget":{"maxCostUsd":1e-400,"period":"day"}}"""), "budget.maxCostUsd");
        assertRefused(http.post("/agents", alice, """
                {"ownerId":"alice","name":"n","type":"service","permissions":[],"metadata":{"big":18446744073709551621}}"""), "metadata.big");
        Http.Response big = http.post("/agents", alice, """
                {"ownerId":"alice","name":"n","type":"service","permissions":[],"metadata":{"n":1e300,"z":-0}}""");
        assertThat(big.status())
                .as("within the double range is stored as written")
                .isEqualTo(201);

        Http.Response list = http.get("/agents", alice);
        assertThat(list.status()).isEqualTo(200);
        assertThat(list.json().size()).isEqualTo(before + 1);
        Http.Response one = http.get("/agents/" + big.json().get("id").asText(), alice);
        assertThat(one.status()).isEqualTo(200);
        assertThat(one.json().at("/metadata/n").decimalValue()).isEqualByComparingTo("1e300");
        assertThat(http.get("/dashboard/stats", admin).status()).isEqualTo(200);
    }

    @Test
    void tokenCountsNeverWrap() {
        assertRefused(
                http.post(
                        "/agents/" + agentId + "/costs",
                        agentToken,
                        "{\"tool\":\"t\",\"inputTokens\":18446744073709551621,\"costUsd\":0.1}"),
                "inputTokens");
        assertRefused(
                http.post(
                        "/agents/" + agentId + "/costs",
                        agentToken,
                        "{\"tool\":\"t\",\"outputTokens\":1e30,\"inputTokens\":-1,\"costUsd\":1e-13}"),
                "outputTokens",
                "inputTokens",
                "costUsd");
        Http.Response ok = http.post(
                "/agents/" + agentId + "/costs",
                agentToken,
                "{\"tool\":\"t\",\"inputTokens\":1e3,\"outputTokens\":5,\"costUsd\":0.1}");
        assertThat(ok.status()).as(ok.body()).isEqualTo(201);
        assertThat(ok.json().get("inputTokens").asLong()).isEqualTo(1000);
    }

    @Test
    void timestampsOutsideYears0001To9999AreA400NamingTheField() {
        assertRefused(http.post("/agents", alice, """
                {"ownerId":"alice","name":"n","type":"service","permissions":[],"expiresAt":"+999999999-12-31T23:59:59Z"}"""), "expiresAt");
        assertRefused(
                http.post(
                        "/auth/tokens",
                        admin,
                        "{\"name\":\"n\",\"userId\":\"bob\",\"expiresAt\":\"-000001-01-01T00:00:00Z\"}"),
                "expiresAt");
        assertRefused(http.get("/audit?since=%2B999999999-12-31T23:59:59Z", admin), "since");
        assertRefused(http.get("/audit?until=%2B10000-01-01T00:00:00Z", admin), "until");
        assertRefused(http.get("/audit/export?format=csv&since=-999999999-01-01T00:00:00Z", admin), "since");
        assertThat(http.get("/audit?since=9999-12-31T23:59:59Z", admin).status())
                .isEqualTo(200);
    }

    @Test
    void aContentTypeThatDoesNotParseIs415() {
        Http.Response res = http.send(HttpRequest.newBuilder(URI.create(http.baseUri() + "/agents"))
                .header("Authorization", "Bearer " + alice)
                .header("Content-Type", "application/json;;;==;")
                .POST(HttpRequest.BodyPublishers.ofString("{}")));
        assertThat(res.status()).isEqualTo(415);
        assertThat(res.json().get("code").asText()).isEqualTo("unsupported_media_type");
    }

    @Test
    void queryValuesWithANulAreA400() {
        assertRefused(http.get("/audit?actions=%00", alice), "actions");
        assertRefused(http.get("/agents?tenantId=a%00", alice), "tenantId");
    }

    @Test
    void signInWithAnUnusableUsernameIsTheUniform401() {
        Http.Response nul = http.post("/auth/sign-in", null, "{\"username\":\"x\\u0000y\",\"password\":\"whatever\"}");
        Http.Response surrogate = http.post("/auth/sign-in", null, "{\"username\":\"\\ud800\",\"password\":\"pw\"}");
        Http.Response unknown = http.post("/auth/sign-in", null, "{\"username\":\"nobody\",\"password\":\"whatever\"}");
        for (Http.Response res : List.of(nul, surrogate, unknown)) {
            assertThat(res.status()).isEqualTo(401);
            assertThat(res.json().get("code").asText()).isEqualTo("INVALID_CREDENTIALS");
        }
        assertThat(nul.json().get("detail")).isEqualTo(unknown.json().get("detail"));
    }

    @Test
    void passwordsMayNotBeBlankNorTheUsername() {
        assertRefused(
                http.post("/auth/sign-up", null, "{\"username\":\"tom\",\"password\":\"            \"}"), "password");
        assertRefused(
                http.post("/auth/sign-up", null, "{\"username\":\"tommy-long\",\"password\":\"Tommy-Long\"}"),
                "password");
        assertThat(http.post("/auth/sign-up", null, "{\"username\":\"tommy\",\"password\":\"a long passphrase\"}")
                        .status())
                .isEqualTo(201);
    }

    @Test
    void theCsvExportNeutralisesFormulaCells() throws Exception {
        String auditId = http.post("/authorize", agentToken, """
                {"agentId":"%s","action":"=cmd|' /C calc'!A0","resource":"+sum(1)",
                 "context":{"ip":"-2+3","userAgent":"@SUM(1)"}}""".formatted(agentId))
                .json()
                .get("auditId")
                .asText();
        awaitAudit(auditId);
        String csv = http.get("/audit/export?format=csv", alice).body();
        String line = csv.lines().filter(l -> l.startsWith(auditId)).findFirst().orElseThrow();
        assertThat(line)
                .contains(",'=cmd|' /C calc'!A0,")
                .contains(",'+sum(1),")
                .contains(",'-2+3,")
                .endsWith(",'@SUM(1),127.0.0.1,");
    }

    @Test
    void auditStatisticsAreForTheAdministratorOnly() {
        assertThat(http.get("/audit/stats", alice).status()).isEqualTo(403);
        assertThat(http.get("/audit/stats", agentToken).status()).isEqualTo(403);
        assertThat(http.get("/audit/stats", admin).status()).isEqualTo(200);
        assertThat(http.get("/admin/v1/dead-letters", alice).status()).isEqualTo(403);
        assertThat(http.get("/admin/v1/dead-letters", admin).status()).isEqualTo(200);
    }

    @Test
    void aDecisionAboutAnUnknownAgentCarriesAStringUserId() throws Exception {
        Http.Response res = http.post(
                "/authorize",
                admin,
                "{\"agentId\":\"agt_00000000000000000000000000\",\"action\":\"read\",\"resource\":\"x:y\"}");
        assertThat(res.status()).as(res.body()).isEqualTo(200);
        JsonNode entries = awaitAudit(res.json().get("auditId").asText());
        JsonNode entry = null;
        for (JsonNode e : entries) {
            if (e.get("id").asText().equals(res.json().get("auditId").asText())) {
                entry = e;
            }
        }
        assertThat(entry).isNotNull();
        assertThat(entry.get("userId").isTextual()).isTrue();
        assertThat(entry.get("userId").asText()).isEmpty();
    }

    /** The admin's view of the audit log once it holds {@code auditId}. */
    static JsonNode awaitAudit(String auditId) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        JsonNode entries = http.get("/audit?limit=1000", admin).json();
        while (!entries.toString().contains(auditId) && System.nanoTime() < deadline) {
            Thread.sleep(100);
            entries = http.get("/audit?limit=1000", admin).json();
        }
        assertThat(entries.toString()).contains(auditId);
        return entries;
    }
}
