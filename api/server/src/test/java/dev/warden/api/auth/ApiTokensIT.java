package dev.warden.api.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.pipeline.contract.Json;
import dev.warden.testing.Http;
import dev.warden.testing.SseClient;
import dev.warden.testing.TestPlatform;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code /auth/tokens}: admin-issued user API tokens, {@code current} describe and revoke. Users creating
 * their own tokens from a session is covered by {@code UsersIT}.
 */
class ApiTokensIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform();

    @Test
    void adminIssuesTokenShownOnceAndCurrentDescribesIt() {
        Http http = warden.http();
        Http.Response created = http.post("/auth/tokens", warden.adminToken(), "{\"name\":\"ci\",\"userId\":\"dana\"}");
        assertThat(created.status()).isEqualTo(201);
        String token = created.json().get("token").asText();
        assertThat(token).startsWith("wdn_api_");
        assertThat(created.json().get("userId").asText()).isEqualTo("dana");

        Http.Response current = http.get("/auth/tokens/current", token);
        assertThat(current.status()).isEqualTo(200);
        assertThat(current.json().get("id").asText())
                .isEqualTo(created.json().get("id").asText());
        assertThat(current.json().get("name").asText()).isEqualTo("ci");
        assertThat(current.json().has("token")).isFalse();
    }

    @Test
    void deleteCurrentRevokesTheTokenImmediately() {
        Http http = warden.http();
        String token = http.post("/auth/tokens", warden.adminToken(), "{\"name\":\"tmp\",\"userId\":\"erin\"}")
                .json()
                .get("token")
                .asText();
        assertThat(http.delete("/auth/tokens/current", token).status()).isEqualTo(204);
        assertThat(http.get("/auth/tokens/current", token).status()).isEqualTo(401);
        assertThat(http.get("/agents", token).status()).isEqualTo(401);
    }

    @Test
    void anApiTokenCannotMintTokensAndCurrentAcceptsOnlyApiTokens() {
        Http http = warden.http();
        String user = http.post("/auth/tokens", warden.adminToken(), "{\"name\":\"a\",\"userId\":\"fay\"}")
                .json()
                .get("token")
                .asText();
        assertThat(http.post("/auth/tokens", user, "{\"name\":\"b\",\"userId\":\"fay\"}")
                        .status())
                .isEqualTo(403);
        assertThat(http.get("/auth/tokens/current", warden.adminToken()).status())
                .isEqualTo(403);
        Http.Response bad = http.post("/auth/tokens", warden.adminToken(), "{\"name\":\"\",\"userId\":\"has space\"}");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.json().get("errors").findValuesAsText("field")).containsExactlyInAnyOrder("name", "userId");
    }

    @Test
    void aScopedTokenReachesOnlyTheRoutesOfItsScopes() {
        Http http = warden.http();
        String admin = warden.adminToken();
        String reader = http.post(
                        "/auth/tokens", admin, "{\"name\":\"ro\",\"userId\":\"gus\",\"scopes\":[\"agents:read\"]}")
                .json()
                .get("token")
                .asText();

        assertThat(http.get("/agents", reader).status()).isEqualTo(200);
        assertThat(http.get("/auth/tokens/current", reader).status()).isEqualTo(200);
        Http.Response write = http.post(
                "/agents", reader, "{\"name\":\"x\",\"type\":\"autonomous\",\"ownerId\":\"gus\",\"permissions\":[]}");
        assertThat(write.status()).isEqualTo(403);
        assertThat(write.json().get("code").asText()).isEqualTo("insufficient_scope");
        assertThat(write.header("WWW-Authenticate").orElseThrow())
                .startsWith("Bearer error=\"insufficient_scope\", " + "resource_metadata=\"")
                .endsWith(", scope=\"agents:write\"");
        assertThat(http.get("/audit", reader).status()).isEqualTo(403);
        assertThat(http.get("/dashboard/stats", reader).status()).isEqualTo(403);
        assertThat(http.post("/authorize", reader, "{\"agentId\":\"agt_x\",\"action\":\"read\",\"resource\":\"r\"}")
                        .status())
                .isEqualTo(403);
        // A route outside every area needs "*": a future route is closed to narrow tokens until it is mapped.
        assertThat(http.get("/no-such-area", reader).status()).isEqualTo(403);

        String writer = http.post(
                        "/auth/tokens",
                        admin,
                        "{\"name\":\"rw\",\"userId\":\"gus\",\"scopes\":[\"agents:*\",\"audit:read\"]}")
                .json()
                .get("token")
                .asText();
        Http.Response created = http.post(
                "/agents", writer, "{\"name\":\"x\",\"type\":\"autonomous\",\"ownerId\":\"gus\",\"permissions\":[]}");
        assertThat(created.status()).isEqualTo(201);
        String agentId = created.json().get("id").asText();
        assertThat(http.get("/audit", writer).status()).isEqualTo(200);
        // Recording a cost is its own area: agents:* does not include it.
        assertThat(http.post(
                                "/agents/" + agentId + "/costs",
                                writer,
                                "{\"tool\":\"t\",\"inputTokens\":1,\"outputTokens\":1,\"costUsd\":0.1}")
                        .status())
                .isEqualTo(403);
        String coster = http.post(
                        "/auth/tokens", admin, "{\"name\":\"c\",\"userId\":\"gus\",\"scopes\":[\"costs:write\"]}")
                .json()
                .get("token")
                .asText();
        assertThat(http.post(
                                "/agents/" + agentId + "/costs",
                                coster,
                                "{\"tool\":\"t\",\"inputTokens\":1,\"outputTokens\":1,\"costUsd\":0.1}")
                        .status())
                .isEqualTo(201);
        assertThat(http.get("/agents/" + agentId, coster).status()).isEqualTo(403);
    }

    @Test
    void theEventStreamNeedsEventsRead() throws Exception {
        Http http = warden.http();
        String noEvents = http.post(
                        "/auth/tokens",
                        warden.adminToken(),
                        "{\"name\":\"n\",\"userId\":\"hal\",\"scopes\":[\"agents:read\"]}")
                .json()
                .get("token")
                .asText();
        try (SseClient sse =
                SseClient.connect(http.baseUri(), "/events/stream", Map.of("Authorization", "Bearer " + noEvents))) {
            SseClient.Message first = sse.events(1, Duration.ofSeconds(5)).getFirst();
            assertThat(first.event()).isEqualTo("error");
            assertThat(Json.mapper().readTree(first.data()).get("code").asText())
                    .isEqualTo("UNAUTHORIZED");
        }
        String events = http.post(
                        "/auth/tokens",
                        warden.adminToken(),
                        "{\"name\":\"e\",\"userId\":\"hal\",\"scopes\":[\"events:read\"]}")
                .json()
                .get("token")
                .asText();
        try (SseClient sse =
                SseClient.connect(http.baseUri(), "/events/stream", Map.of("Authorization", "Bearer " + events))) {
            assertThat(sse.status()).isEqualTo(200);
            assertThat(sse.ended()).isFalse();
        }
    }

    @Test
    void unknownScopesAreRefusedNamingTheField() {
        Http.Response bad = warden.http()
                .post(
                        "/auth/tokens",
                        warden.adminToken(),
                        "{\"name\":\"s\",\"userId\":\"ida\",\"scopes\":[\"agents:read\",\"agents:delete\",\"root\"]}");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.json().get("errors").findValuesAsText("field")).containsExactly("scopes[1]", "scopes[2]");
    }
}
