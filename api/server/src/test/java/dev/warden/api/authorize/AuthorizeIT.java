package dev.warden.api.authorize;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditResult;
import dev.warden.testing.AuditTopic;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code POST /authorize} through real HTTP, with audit entries read back from Kafka. */
class AuthorizeIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform();

    static Http http;
    static String owner;

    @BeforeAll
    static void setUp() {
        http = warden.http();
        owner = http.post("/auth/tokens", warden.adminToken(), "{\"name\":\"t\",\"userId\":\"olga\"}")
                .json()
                .get("token")
                .asText();
    }

    static JsonNode agent(String permissions) {
        Http.Response res = http.post(
                "/agents",
                owner,
                "{\"ownerId\":\"olga\",\"name\":\"a\",\"type\":\"autonomous\"," + "\"permissions\":" + permissions
                        + "}");
        assertThat(res.status()).as(res.body()).isEqualTo(201);
        return res.json();
    }

    static JsonNode ask(String token, String agentId, String action, String resource) {
        Http.Response res = http.post(
                "/authorize",
                token,
                "{\"agentId\":\"" + agentId + "\",\"action\":\"" + action + "\",\"resource\":\"" + resource + "\"}");
        assertThat(res.status()).as(res.body()).isEqualTo(200);
        return res.json();
    }

    @Test
    void allowedDecisionIsAuditedOnKafkaWithContextAndRedactedArguments() {
        String id = agent("[{\"resource\":\"mcp:github:*\",\"actions\":[\"read\"]}]")
                .get("id")
                .asText();
        Http.Response res = http.post("/authorize", owner, """
                {"agentId":"%s","action":"read","resource":"mcp:github:issues:42",
                 "arguments":{"repo":"warden","password":"hunter2","nested":{"apiToken":"abc","n":1},"code":"x1"},
                 "context":{"ip":"203.0.113.9","userAgent":"agent-sdk/1.0"}}""".formatted(id));
        assertThat(res.status()).isEqualTo(200);
        assertThat(res.json().get("allowed").asBoolean()).isTrue();
        assertThat(res.json().has("reason")).isFalse();
        String auditId = res.json().get("auditId").asText();

        List<AuditEntry> entries = AuditTopic.read(warden, e -> e.id().equals(auditId), 1);
        assertThat(entries).hasSize(1);
        AuditEntry entry = entries.getFirst();
        assertThat(entry.agentId()).isEqualTo(id);
        assertThat(entry.userId()).hasValue("olga");
        assertThat(entry.result()).isEqualTo(AuditResult.ALLOWED);
        assertThat(entry.ip()).hasValue("203.0.113.9");
        assertThat(entry.userAgent()).hasValue("agent-sdk/1.0");
        assertThat(entry.durationMs()).isGreaterThanOrEqualTo(0);
        assertThat(entry.parameters())
                .containsEntry("repo", "warden")
                .containsEntry("password", "[REDACTED]")
                .containsEntry("code", "[REDACTED]");
        assertThat(entry.parameters().get("nested").toString())
                .contains("apiToken=[REDACTED]")
                .doesNotContain("abc");
    }

    @Test
    void nullArgumentValuesAreDecidedAndAuditedAsNull() {
        String id = agent("[{\"resource\":\"mcp:github:*\",\"actions\":[\"read\"]}]")
                .get("id")
                .asText();
        Http.Response res = http.post("/authorize", owner, """
                {"agentId":"%s","action":"read","resource":"mcp:github:issues:1",
                 "arguments":{"label":null,"token":null,"list":[null,1]}}""".formatted(id));
        assertThat(res.status()).as(res.body()).isEqualTo(200);
        String auditId = res.json().get("auditId").asText();

        AuditEntry entry =
                AuditTopic.read(warden, e -> e.id().equals(auditId), 1).getFirst();
        assertThat(entry.parameters()).containsEntry("label", null).containsEntry("token", "[REDACTED]");
        assertThat(entry.parameters().get("list")).isEqualTo(java.util.Arrays.asList(null, 1));
    }

    @Test
    void trailingWildcardMatchesDeeperResourcesButNotThePrefixItself() {
        String id = agent("[{\"resource\":\"mcp:github:*\",\"actions\":[\"read\"]}]")
                .get("id")
                .asText();
        assertThat(ask(owner, id, "read", "mcp:github:issues").get("allowed").asBoolean())
                .isTrue();
        JsonNode prefix = ask(owner, id, "read", "mcp:github");
        assertThat(prefix.get("allowed").asBoolean()).isFalse();
        assertThat(prefix.get("reason").asText()).isEqualTo("NO_MATCHING_PERMISSION");
        assertThat(ask(owner, id, "write", "mcp:github:issues").get("reason").asText())
                .isEqualTo("NO_MATCHING_PERMISSION");
        assertThat(ask(owner, id, "read", "mcp:gitlab:x").get("allowed").asBoolean())
                .isFalse();
    }

    @Test
    void inactiveAgentsAreDeniedWithTheirReasonAndAudited() {
        JsonNode suspended = agent("[{\"resource\":\"*\",\"actions\":[\"*\"]}]");
        http.post("/agents/" + suspended.get("id").asText() + "/suspend", owner);
        JsonNode denied = ask(owner, suspended.get("id").asText(), "read", "x:y");
        assertThat(denied.get("reason").asText()).isEqualTo("AGENT_SUSPENDED");

        JsonNode revoked = agent("[{\"resource\":\"*\",\"actions\":[\"*\"]}]");
        http.delete("/agents/" + revoked.get("id").asText(), owner);
        assertThat(ask(owner, revoked.get("id").asText(), "read", "x:y")
                        .get("reason")
                        .asText())
                .isEqualTo("AGENT_REVOKED");

        assertThat(ask(warden.adminToken(), "agt_missing", "read", "x:y")
                        .get("reason")
                        .asText())
                .isEqualTo("AGENT_NOT_FOUND");
        List<AuditEntry> audited =
                AuditTopic.read(warden, e -> e.id().equals(denied.get("auditId").asText()), 1);
        assertThat(audited).singleElement().satisfies(e -> {
            assertThat(e.result()).isEqualTo(AuditResult.DENIED);
            assertThat(e.reason()).hasValue("AGENT_SUSPENDED");
        });
    }

    @Test
    void expiredAgentIsDenied() {
        String soon = warden.clock().instant().plus(Duration.ofMinutes(5)).toString();
        Http.Response created = http.post(
                "/agents",
                owner,
                "{\"ownerId\":\"olga\",\"name\":\"a\",\"type\":\"service\"," + "\"expiresAt\":\"" + soon
                        + "\",\"permissions\":[{\"resource\":\"*\",\"actions\":[\"*\"]}]}");
        String id = created.json().get("id").asText();
        assertThat(ask(owner, id, "read", "x:y").get("allowed").asBoolean()).isTrue();
        warden.clock().advance(Duration.ofMinutes(10));
        try {
            assertThat(ask(owner, id, "read", "x:y").get("reason").asText()).isEqualTo("AGENT_EXPIRED");
        } finally {
            warden.clock().advance(Duration.ofMinutes(-10));
        }
    }

    @Test
    void onlyTheAgentItsOwnerOrTheAdminMayAskAndOthersLearnNothing() {
        JsonNode a = agent("[{\"resource\":\"*\",\"actions\":[\"*\"]}]");
        JsonNode b = agent("[{\"resource\":\"*\",\"actions\":[\"*\"]}]");
        String id = a.get("id").asText();
        assertThat(ask(a.get("token").asText(), id, "read", "x:y")
                        .get("allowed")
                        .asBoolean())
                .isTrue();
        assertThat(ask(warden.adminToken(), id, "read", "x:y").get("allowed").asBoolean())
                .isTrue();

        String stranger = http.post("/auth/tokens", warden.adminToken(), "{\"name\":\"t\",\"userId\":\"mallory\"}")
                .json()
                .get("token")
                .asText();
        Http.Response foreign = http.post(
                "/authorize", stranger, "{\"agentId\":\"" + id + "\",\"action\":\"read\"," + "\"resource\":\"x:y\"}");
        Http.Response missing = http.post(
                "/authorize", stranger, "{\"agentId\":\"agt_nope\",\"action\":\"read\"," + "\"resource\":\"x:y\"}");
        assertThat(foreign.status()).isEqualTo(404);
        assertThat(foreign.json().get("code").asText())
                .isEqualTo(missing.json().get("code").asText());
        assertThat(http.post(
                                "/authorize",
                                b.get("token").asText(),
                                "{\"agentId\":\"" + id + "\",\"action\":\"read\"," + "\"resource\":\"x:y\"}")
                        .status())
                .isEqualTo(404);
    }

    @Test
    void badInputIsA400NamingTheField() {
        Http.Response res =
                http.post("/authorize", owner, "{\"agentId\":\"a b\",\"resource\":\"mcp:*\",\"arguments\":[]}");
        assertThat(res.status()).isEqualTo(400);
        assertThat(res.json().get("errors").findValuesAsText("field"))
                .containsExactlyInAnyOrder("agentId", "action", "resource", "arguments");
    }

    @Test
    void hourlyLimitIsExactDeniedCallsConsumeNothingAndTheCounterResetsOnTheHour() {
        String id = agent(
                        "[{\"resource\":\"mcp:db:*\",\"actions\":[\"query\"],\"constraints\":{\"maxCallsPerHour\":3}}]")
                .get("id")
                .asText();
        for (int i = 0; i < 3; i++) {
            assertThat(ask(owner, id, "query", "mcp:db:users").get("allowed").asBoolean())
                    .isTrue();
        }
        assertThat(ask(owner, id, "drop", "mcp:db:users").get("reason").asText())
                .isEqualTo("NO_MATCHING_PERMISSION");
        JsonNode limited = ask(owner, id, "query", "mcp:db:users");
        assertThat(limited.get("allowed").asBoolean()).isFalse();
        assertThat(limited.get("reason").asText()).isEqualTo("RATE_LIMITED");
        assertThat(limited.get("retryAfter").asLong()).isBetween(1L, 3600L);
        assertThat(AuditTopic.read(
                        warden, e -> e.id().equals(limited.get("auditId").asText()), 1))
                .singleElement()
                .extracting(AuditEntry::result)
                .isEqualTo(AuditResult.RATE_LIMITED);

        warden.clock().advance(Duration.ofHours(1));
        assertThat(ask(owner, id, "query", "mcp:db:users").get("allowed").asBoolean())
                .isTrue();
    }

    @Test
    void anUnconstrainedGrantIsPreferredAndSpendsNoBudget() {
        String id = agent(
                        "[{\"resource\":\"mcp:github:*\",\"actions\":[\"read\"],\"constraints\":{\"maxCallsPerHour\":1}},"
                                + "{\"resource\":\"mcp:github:issues:*\",\"actions\":[\"read\"]}]")
                .get("id")
                .asText();
        for (int i = 0; i < 5; i++) {
            assertThat(ask(owner, id, "read", "mcp:github:issues:" + i)
                            .get("allowed")
                            .asBoolean())
                    .isTrue();
        }
        assertThat(ask(owner, id, "read", "mcp:github:pulls").get("allowed").asBoolean())
                .isTrue();
        assertThat(ask(owner, id, "read", "mcp:github:pulls").get("reason").asText())
                .isEqualTo("RATE_LIMITED");
    }
}
