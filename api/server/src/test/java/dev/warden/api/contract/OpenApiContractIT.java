package dev.warden.api.contract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.api.oauth.OAuthDriver;
import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.api.users.UsersConfig;
import dev.warden.api.users.totp.Base32;
import dev.warden.api.users.totp.Totp;
import dev.warden.api.webhooks.WebhooksConfig;
import dev.warden.pipeline.contract.Json;
import dev.warden.testing.ContractValidator;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The OpenAPI document against the running platform: {@code GET /openapi.json} serves it publicly as kept in the
 * repository; every route the platform mounts is documented; and a scenario through every area (users, API tokens,
 * agents, delegations, decisions, audit, dashboard, costs, webhooks, Shared Signals, organizations, the account
 * routes, the OAuth server, MCP, the event stream, administration), successes and failures alike, answers exactly as
 * the document
 * says: every response of it is checked by {@link ContractValidator}.
 */
class OpenApiContractIT {
    /** Sign-ups the scenario makes before the one the limit refuses. */
    private static final int SIGN_UPS = 5;

    private static final String PASSWORD = "correct horse battery staple";
    private static final String ORG = "/admin/v1/organizations/{orgID}";

    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b -> b.accountRoutes(true)
            .users(UsersConfig.builder().argon2(1024, 1, 1).build())
            .rateLimit(RateLimitConfig.builder()
                    .endpoint(AuthEndpoint.OAUTH_AUTHORIZE, 100_000, 60)
                    .endpoint(AuthEndpoint.OAUTH_INTROSPECT, 100_000, 60)
                    .endpoint(AuthEndpoint.OAUTH_REVOKE, 100_000, 60)
                    .endpoint(AuthEndpoint.SIGN_UP, SIGN_UPS, 60)
                    .endpoint(AuthEndpoint.REGISTRATION, 100, 60)
                    .build())
            .webhooks(WebhooksConfig.builder()
                    .allowPrivateTargets(true)
                    .maxAttempts(1)
                    .build())
            // A sink nobody listens to, for the sink control routes (it retries in the background, harmlessly)
            .auditSinks(java.util.List.of(dev.warden.sinks.external.AuditSinkSpec.builder(
                            dev.warden.sinks.external.AuditSinkSpec.Type.SPLUNK_HEC,
                            java.net.URI.create("http://127.0.0.1:9"))
                    .secret("t")
                    .option("name", "contract")
                    .build())));

    /** A signed-up user: id and session token. */
    record User(String id, String session) {}

    /** An agent: id and its current token. */
    record Agent(String id, String token) {}

    private final ContractValidator contract = ContractValidator.fromClasspath();
    private Http http;
    private String admin;
    private User alice;
    private User bob;
    private User carol;
    private String aliceApiToken;
    private String readOnlyToken;
    private Agent triage;
    private Agent indexer;

    @BeforeEach
    void client() {
        http = warden.http();
        admin = warden.adminToken();
    }

    @Test
    void theDocumentIsServedPubliclyExactlyAsKeptInTheRepository() {
        Http.Response res = http.get("/openapi.json", null);

        assertThat(res.status()).isEqualTo(200);
        assertThat(res.header("Content-Type")).hasValue("application/json");
        assertThat(res.header("Cache-Control")).hasValue("public, max-age=300");
        assertThat(res.body()).isEqualTo(repositoryDocument());
        contract.validate("GET", "/openapi.json", res);
    }

    @Test
    void everyRouteThePlatformMountsIsDocumented() {
        Set<String> mounted = new TreeSet<>();
        warden.routes().forEach(route -> mounted.add(route.method() + " " + route.pattern()));

        assertThat(contract.operationsByRoute().keySet()).containsAll(mounted);
    }

    @Test
    void aScenarioThroughEveryAreaAnswersExactlyAsDocumented() {
        publicDocuments();
        users();
        apiTokens();
        agents();
        delegationsAndDecisions();
        approvals();
        auditAndDashboard();
        webhooks();
        sharedSignals();
        organizations();
        accountRoutes();
        oauth();
        mcp();
        eventStream();
        console();
        administration();
        secondFactor();

        assertThat(contract.validatedCount()).as("responses validated").isGreaterThanOrEqualTo(200);
        assertThat(contract.validatedResponses().stream()
                        .map(r -> r.substring(0, r.lastIndexOf(' ')))
                        .distinct())
                .as("every documented operation answered at least once")
                .containsExactlyInAnyOrderElementsOf(contract.documentedOperations());
    }

    private void publicDocuments() {
        answer(200, "GET", "/openapi.json", http.get("/openapi.json", null));
        contract.validate("GET", "/observe/health", http.get("/observe/health", null));
        answer(200, "GET", "/observe/live", http.get("/observe/live", null));
        answer(200, "GET", "/observe/metrics", http.get("/observe/metrics", null));
        answer(
                200,
                "GET",
                "/.well-known/oauth-authorization-server",
                http.get("/.well-known/oauth-authorization-server", null));
        answer(
                404,
                "GET",
                "/.well-known/oauth-authorization-server/{path}",
                http.get("/.well-known/oauth-authorization-server/tenant", null));
        answer(200, "GET", "/.well-known/openid-configuration", http.get("/.well-known/openid-configuration", null));
        answer(
                200,
                "GET",
                "/.well-known/oauth-protected-resource",
                http.get("/.well-known/oauth-protected-resource", null));
        answer(
                200,
                "GET",
                "/.well-known/oauth-protected-resource/{path}",
                http.get("/.well-known/oauth-protected-resource/mcp", null));
        answer(
                404,
                "GET",
                "/.well-known/oauth-protected-resource/{path}",
                http.get("/.well-known/oauth-protected-resource/elsewhere", null));
        answer(200, "GET", "/oauth/jwks", http.get("/oauth/jwks", null));
    }

    private void users() {
        alice = signUp("{\"username\":\"alice_contract\",\"password\":\"" + PASSWORD
                + "\",\"email\":\"alice@example.org\",\"displayName\":\"Alice\"}");
        bob = signUp("{\"username\":\"bob_contract\",\"password\":\"" + PASSWORD + "\"}");
        carol = signUp("{\"username\":\"carol_contract\",\"password\":\"" + PASSWORD + "\"}");
        answer(
                400,
                "POST",
                "/auth/sign-up",
                http.post("/auth/sign-up", null, "{\"username\":\"a!\",\"password\":\"" + PASSWORD + "\"}"));
        answer(
                409,
                "POST",
                "/auth/sign-up",
                http.post(
                        "/auth/sign-up", null, "{\"username\":\"ALICE_contract\",\"password\":\"" + PASSWORD + "\"}"));
        Http.Response limited = answer(
                429,
                "POST",
                "/auth/sign-up",
                http.post("/auth/sign-up", null, "{\"username\":\"dave_contract\",\"password\":\"" + PASSWORD + "\"}"));
        assertThat(limited.header("Retry-After")).isPresent();

        answer(
                200,
                "POST",
                "/auth/sign-in",
                http.post(
                        "/auth/sign-in", null, "{\"username\":\"Alice_Contract\",\"password\":\"" + PASSWORD + "\"}"));
        answer(
                401,
                "POST",
                "/auth/sign-in",
                http.post("/auth/sign-in", null, "{\"username\":\"alice_contract\",\"password\":\"wrong password\"}"));
        answer(400, "POST", "/auth/sign-in", http.post("/auth/sign-in", null, "{\"username\":\"alice_contract\"}"));
        answer(200, "GET", "/auth/session", http.get("/auth/session", alice.session()));
        answer(
                200,
                "POST",
                "/auth/change-username",
                http.post("/auth/change-username", carol.session(), "{\"username\":\"carol_renamed\"}"));
        answer(
                409,
                "POST",
                "/auth/change-username",
                http.post("/auth/change-username", carol.session(), "{\"username\":\"bob_contract\"}"));
        answer(204, "POST", "/auth/sign-out", http.post("/auth/sign-out", carol.session()));
        answer(401, "GET", "/auth/session", http.get("/auth/session", carol.session()));
        JsonNode signedIn = answer(
                        200,
                        "POST",
                        "/auth/sign-in",
                        http.post(
                                "/auth/sign-in",
                                null,
                                "{\"username\":\"carol_renamed\",\"password\":\"" + PASSWORD + "\"}"))
                .json();
        carol = new User(carol.id(), signedIn.get("token").asText());
    }

    private void apiTokens() {
        readOnlyToken = answer(
                        201,
                        "POST",
                        "/auth/tokens",
                        http.post(
                                "/auth/tokens",
                                alice.session(),
                                "{\"name\":\"ci\",\"scopes\":[\"agents:read\"],\"expiresAt\":\"2099-01-01T00:00:00Z\"}"))
                .json()
                .get("token")
                .asText();
        aliceApiToken = answer(
                        201,
                        "POST",
                        "/auth/tokens",
                        http.post("/auth/tokens", admin, "{\"name\":\"laptop\",\"userId\":\"" + alice.id() + "\"}"))
                .json()
                .get("token")
                .asText();
        answer(403, "POST", "/auth/tokens", http.post("/auth/tokens", aliceApiToken, "{\"name\":\"minted\"}"));
        answer(
                400,
                "POST",
                "/auth/tokens",
                http.post("/auth/tokens", alice.session(), "{\"name\":\"bad\",\"scopes\":[\"everything\"]}"));
        answer(200, "GET", "/auth/tokens", http.get("/auth/tokens", alice.session()));
        answer(200, "GET", "/auth/tokens", http.get("/auth/tokens?userId=" + alice.id(), admin));
        answer(200, "GET", "/auth/tokens/current", http.get("/auth/tokens/current", readOnlyToken));
        answer(403, "GET", "/auth/tokens/current", http.get("/auth/tokens/current", alice.session()));
        answer(403, "GET", "/audit", http.get("/audit", readOnlyToken));

        String temporary = answer(
                        201,
                        "POST",
                        "/auth/tokens",
                        http.post("/auth/tokens", alice.session(), "{\"name\":\"temporary\"}"))
                .json()
                .get("id")
                .asText();
        answer(204, "DELETE", "/auth/tokens/{id}", http.delete("/auth/tokens/" + temporary, alice.session()));
        answer(404, "DELETE", "/auth/tokens/{id}", http.delete("/auth/tokens/tok_doesnotexist", alice.session()));
        String throwaway = answer(
                        201,
                        "POST",
                        "/auth/tokens",
                        http.post("/auth/tokens", alice.session(), "{\"name\":\"throwaway\"}"))
                .json()
                .get("token")
                .asText();
        answer(204, "DELETE", "/auth/tokens/current", http.delete("/auth/tokens/current", throwaway));
        answer(401, "GET", "/auth/tokens/current", http.get("/auth/tokens/current", throwaway));
    }

    private void agents() {
        triage = createAgent(alice, """
                {"ownerId":"%s","name":"triage-bot","type":"autonomous","tenantId":"acme-legacy",
                 "permissions":[{"resource":"mcp:github:*","actions":["read","write"]},
                                {"resource":"db:reports:*","actions":["export"],"constraints":{"maxCallsPerHour":100}}],
                 "expiresAt":"2099-01-01T00:00:00+01:00","metadata":{"team":"platform","weight":1.5},
                 "budget":{"maxCostUsd":25.5,"period":"day"}}""".formatted(alice.id()));
        indexer = createAgent(alice, """
                {"ownerId":"%s","name":"indexer","type":"service",
                 "permissions":[{"resource":"mcp:github:issues:*","actions":["read"]}]}""".formatted(alice.id()));
        Agent doomed = createAgent(alice, simpleAgent(alice.id(), "doomed", "delegated"));

        answer(200, "GET", "/agents", http.get("/agents", alice.session()));
        answer(
                200,
                "GET",
                "/agents",
                http.get("/agents?status=active&type=service&tenantId=acme-legacy", readOnlyToken));
        answer(400, "GET", "/agents", http.get("/agents?status=sleeping", alice.session()));
        answer(401, "GET", "/agents", http.get("/agents", null));
        answer(401, "GET", "/agents", http.get("/agents", "wdn_api_not-a-real-token"));
        answer(200, "GET", "/agents/{id}", http.get("/agents/" + triage.id(), alice.session()));
        answer(200, "GET", "/agents/{id}", http.get("/agents/" + triage.id(), triage.token()));
        answer(404, "GET", "/agents/{id}", http.get("/agents/agt_doesnotexist", alice.session()));
        answer(404, "GET", "/agents/{id}", http.get("/agents/" + triage.id(), bob.session()));

        answer(
                200,
                "PATCH",
                "/agents/{id}",
                http.patch(
                        "/agents/" + triage.id(),
                        alice.session(),
                        "{\"name\":\"triage-bot-2\",\"budget\":null,\"metadata\":{\"team\":\"ops\"}}"));
        answer(400, "PATCH", "/agents/{id}", http.patch("/agents/" + triage.id(), alice.session(), "{\"name\":null}"));
        triage = new Agent(
                triage.id(),
                answer(
                                200,
                                "POST",
                                "/agents/{id}/rotate",
                                http.post("/agents/" + triage.id() + "/rotate", alice.session()))
                        .json()
                        .get("token")
                        .asText());
        answer(200, "POST", "/agents/{id}/suspend", http.post("/agents/" + triage.id() + "/suspend", alice.session()));
        answer(200, "POST", "/agents/{id}/resume", http.post("/agents/" + triage.id() + "/resume", alice.session()));

        answer(
                400,
                "POST",
                "/agents",
                http.post(
                        "/agents",
                        alice.session(),
                        "{\"ownerId\":\"" + alice.id()
                                + "\",\"name\":\"\",\"type\":\"robot\",\"permissions\":[{\"resource\":\"mcp:*:x\",\"actions\":[]}]}"));
        answer(400, "POST", "/agents", http.post("/agents", alice.session(), "{\"ownerId\": "));
        answer(
                415,
                "POST",
                "/agents",
                http.send(http.builder("/agents", alice.session())
                        .header("Content-Type", "text/plain")
                        .POST(HttpRequest.BodyPublishers.ofString("{}"))));
        answer(
                403,
                "POST",
                "/agents",
                http.post("/agents", alice.session(), simpleAgent(bob.id(), "not-mine", "service")));
        answer(
                403,
                "POST",
                "/agents",
                http.post("/agents", readOnlyToken, simpleAgent(alice.id(), "scoped", "service")));

        String cost = "{\"tool\":\"gpt\",\"inputTokens\":1200,\"outputTokens\":300,\"costUsd\":0.42}";
        answer(201, "POST", "/agents/{id}/costs", http.post("/agents/" + triage.id() + "/costs", triage.token(), cost));
        answer(404, "POST", "/agents/{id}/costs", http.post("/agents/agt_doesnotexist/costs", alice.session(), cost));
        answer(
                400,
                "POST",
                "/agents/{id}/costs",
                http.post(
                        "/agents/" + triage.id() + "/costs", alice.session(), "{\"tool\":\"gpt\",\"inputTokens\":-1}"));

        String client = "/agents/" + indexer.id() + "/oauth-client";
        answer(201, "POST", "/agents/{id}/oauth-client", http.post(client, alice.session()));
        answer(200, "POST", "/agents/{id}/oauth-client", http.post(client, alice.session()));
        answer(200, "GET", "/agents/{id}/oauth-client", http.get(client, alice.session()));
        String basic = java.util.Base64.getEncoder()
                .encodeToString(
                        (indexer.id() + ":" + indexer.token()).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        answer(
                200,
                "POST",
                "/oauth/bc-authorize",
                http.send(http.builder("/oauth/bc-authorize", null)
                        .header("Authorization", "Basic " + basic)
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(
                                "scope=agents%3Aread&binding_message=contract&login_hint=" + alice.id()))));
        answer(
                409,
                "POST",
                "/agents/{id}/oauth-client",
                http.post("/agents/" + triage.id() + "/oauth-client", alice.session()));
        answer(204, "DELETE", "/agents/{id}/oauth-client", http.delete(client, alice.session()));
        answer(404, "GET", "/agents/{id}/oauth-client", http.get(client, alice.session()));

        answer(204, "DELETE", "/agents/{id}", http.delete("/agents/" + doomed.id(), alice.session()));
        answer(409, "POST", "/agents/{id}/suspend", http.post("/agents/" + doomed.id() + "/suspend", alice.session()));
        answer(409, "POST", "/agents/{id}/rotate", http.post("/agents/" + doomed.id() + "/rotate", alice.session()));
        answer(
                409,
                "PATCH",
                "/agents/{id}",
                http.patch("/agents/" + doomed.id(), alice.session(), "{\"name\":\"zombie\"}"));
        answer(404, "DELETE", "/agents/{id}", http.delete("/agents/agt_doesnotexist", alice.session()));
    }

    private void delegationsAndDecisions() {
        String delegation = answer(
                        201, "POST", "/delegations", http.post("/delegations", alice.session(), """
                {"fromAgent":"%s","toAgent":"%s","maxDepth":2,"expiresAt":"2098-01-01T00:00:00Z",
                 "permissions":[{"resource":"mcp:github:issues:*","actions":["read"],
                                 "constraints":{"maxCallsPerHour":10}}]}""".formatted(
                                        triage.id(), indexer.id())))
                .json()
                .get("id")
                .asText();
        answer(403, "POST", "/delegations", http.post("/delegations", alice.session(), """
                {"fromAgent":"%s","toAgent":"%s","permissions":[{"resource":"billing:*","actions":["read"]}]}""".formatted(
                        triage.id(), indexer.id())));
        answer(400, "POST", "/delegations", http.post("/delegations", alice.session(), """
                {"fromAgent":"%s","toAgent":"%s","permissions":[{"resource":"mcp:github:x","actions":["read"]}]}""".formatted(
                        triage.id(), triage.id())));
        answer(404, "POST", "/delegations", http.post("/delegations", alice.session(), """
                {"fromAgent":"%s","toAgent":"agt_doesnotexist",
                 "permissions":[{"resource":"mcp:github:x","actions":["read"]}]}""".formatted(triage.id())));
        answer(200, "GET", "/delegations", http.get("/delegations?fromAgent=" + triage.id(), alice.session()));
        answer(200, "GET", "/delegations", http.get("/delegations?toAgent=" + indexer.id(), admin));
        answer(400, "GET", "/delegations", http.get("/delegations?toAgent=not%20an%20id", alice.session()));
        answer(204, "DELETE", "/delegations/{id}", http.delete("/delegations/" + delegation, alice.session()));
        answer(404, "DELETE", "/delegations/{id}", http.delete("/delegations/dlg_doesnotexist", alice.session()));

        JsonNode allowed = answer(
                        200, "POST", "/authorize", http.post("/authorize", triage.token(), """
                {"agentId":"%s","action":"read","resource":"mcp:github:issues:42",
                 "arguments":{"password":"hunter2","n":1},"context":{"ip":"10.0.0.1","userAgent":"contract-it"}}""".formatted(triage.id())))
                .json();
        assertThat(allowed.get("allowed").asBoolean()).isTrue();
        JsonNode denied = answer(
                        200,
                        "POST",
                        "/authorize",
                        http.post(
                                "/authorize",
                                alice.session(),
                                "{\"agentId\":\"" + triage.id()
                                        + "\",\"action\":\"delete\",\"resource\":\"mcp:github:issues:42\"}"))
                .json();
        assertThat(denied.get("reason").asText()).isEqualTo("NO_MATCHING_PERMISSION");
        answer(
                404,
                "POST",
                "/authorize",
                http.post(
                        "/authorize",
                        bob.session(),
                        "{\"agentId\":\"" + triage.id()
                                + "\",\"action\":\"read\",\"resource\":\"mcp:github:issues:42\"}"));
        answer(
                400,
                "POST",
                "/authorize",
                http.post(
                        "/authorize",
                        alice.session(),
                        "{\"agentId\":\"" + triage.id() + "\",\"action\":\"read\",\"resource\":\"mcp:*\"}"));
    }

    private void approvals() {
        JsonNode payer = answer(
                        201, "POST", "/agents", http.post("/agents", alice.session(), """
                {"ownerId":"%s","name":"payer","type":"autonomous","permissions":[{"resource":"pay:*","actions":["refund"],
                 "constraints":{"requireApproval":{"approvers":"owner","validFor":"PT1H"},"when":"has(arguments.n)"}}]}""".formatted(alice.id())))
                .json();
        String token = payer.get("token").asText();
        String ask = "{\"agentId\":\"" + payer.get("id").asText()
                + "\",\"action\":\"refund\",\"resource\":\"pay:1\",\"arguments\":{\"n\":%d}}";
        JsonNode asked = answer(200, "POST", "/authorize", http.post("/authorize", token, ask.formatted(1)))
                .json();
        assertThat(asked.get("reason").asText()).isEqualTo("APPROVAL_REQUIRED");
        String id = asked.get("approvalId").asText();
        JsonNode unmet = answer(
                        200, "POST", "/authorize", http.post("/authorize", token, ask.replace("{\"n\":%d}", "{}")))
                .json();
        assertThat(unmet.get("reason").asText()).isEqualTo("CONDITION_NOT_MET");
        answer(200, "GET", "/approvals", http.get("/approvals?status=pending", alice.session()));
        answer(200, "GET", "/approvals", http.get("/approvals", token));
        answer(400, "GET", "/approvals", http.get("/approvals?limit=0", alice.session()));
        answer(200, "GET", "/approvals/{id}", http.get("/approvals/" + id + "?wait=0", token));
        answer(404, "GET", "/approvals/{id}", http.get("/approvals/" + id, bob.session()));
        answer(400, "GET", "/approvals/{id}", http.get("/approvals/" + id + "?wait=forever", alice.session()));
        answer(403, "POST", "/approvals/{id}/approve", http.post("/approvals/" + id + "/approve", token, "{}"));
        answer(
                400,
                "POST",
                "/approvals/{id}/approve",
                http.post("/approvals/" + id + "/approve", alice.session(), "{\"bogus\":1}"));
        answer(
                200,
                "POST",
                "/approvals/{id}/approve",
                http.post("/approvals/" + id + "/approve", alice.session(), "{\"note\":\"ok\"}"));
        answer(409, "POST", "/approvals/{id}/deny", http.post("/approvals/" + id + "/deny", alice.session(), "{}"));
        answer(200, "GET", "/.well-known/authzen-configuration", http.get("/.well-known/authzen-configuration", null));
        String evaluation =
                "{\"subject\":{\"type\":\"agent\",\"id\":\"" + payer.get("id").asText()
                        + "\"},\"action\":{\"name\":\"refund\"},\"resource\":{\"type\":\"pay\",\"id\":\"1\"},"
                        + "\"context\":{\"n\":1}}";
        answer(200, "POST", "/access/v1/evaluation", http.post("/access/v1/evaluation", token, evaluation));
        answer(400, "POST", "/access/v1/evaluation", http.post("/access/v1/evaluation", token, "{}"));
        answer(200, "POST", "/access/v1/evaluations", http.post("/access/v1/evaluations", token, """
                {"subject":{"type":"agent","id":"%s"},"action":{"name":"refund"},"evaluations":[
                  {"resource":{"type":"pay","id":"1"}},{"resource":{"type":"pay","id":"*"}},
                  {"subject":{"type":"user","id":"alice"},"resource":{"type":"pay","id":"2"}}]}""".formatted(
                        payer.get("id").asText())));
        answer(200, "POST", "/access/v1/evaluations", http.post("/access/v1/evaluations", token, evaluation));
        answer(
                400,
                "POST",
                "/access/v1/evaluations",
                http.post("/access/v1/evaluations", token, "{\"evaluations\":\"all\"}"));
        String payerId = payer.get("id").asText();
        answer(200, "POST", "/access/v1/search/subject", http.post("/access/v1/search/subject", token, """
                {"subject":{"type":"agent"},"action":{"name":"refund"},"resource":{"type":"pay","id":"1"},
                 "page":{"limit":1}}"""));
        answer(400, "POST", "/access/v1/search/subject", http.post("/access/v1/search/subject", token, "{}"));
        answer(200, "POST", "/access/v1/search/resource", http.post("/access/v1/search/resource", token, """
                {"subject":{"type":"agent","id":"%s"},"action":{"name":"refund"},"resource":{"type":"pay"}}""".formatted(
                        payerId)));
        answer(400, "POST", "/access/v1/search/resource", http.post("/access/v1/search/resource", token, """
                {"subject":{"type":"agent","id":"%s"},"action":{"name":"refund"},"resource":{"type":"pay"},
                 "page":{"token":"not-a-token"}}""".formatted(
                        payerId)));
        answer(200, "POST", "/access/v1/search/action", http.post("/access/v1/search/action", token, """
                {"subject":{"type":"agent","id":"%s"},"resource":{"type":"pay","id":"1"}}""".formatted(
                        payerId)));
        answer(400, "POST", "/access/v1/search/action", http.post("/access/v1/search/action", token, """
                {"subject":{"type":"agent"},"resource":{"type":"pay","id":"1"}}"""));
        answer(
                404,
                "POST",
                "/approvals/{id}/deny",
                http.post("/approvals/apr_doesnotexist/deny", alice.session(), "{}"));
        assertThat(answer(200, "POST", "/authorize", http.post("/authorize", token, ask.formatted(1)))
                        .json()
                        .get("allowed")
                        .asBoolean())
                .isTrue();
        String second = answer(200, "POST", "/authorize", http.post("/authorize", token, ask.formatted(2)))
                .json()
                .get("approvalId")
                .asText();
        answer(200, "POST", "/approvals/{id}/deny", http.post("/approvals/" + second + "/deny", alice.session(), "{}"));
    }

    private void consoleApprovals(OAuthDriver oauth, String session) {
        JsonNode waiting =
                http.post("/agents", alice.session(), """
                        {"ownerId":"%s","name":"waiting","type":"autonomous","permissions":[
                          {"resource":"pay:*","actions":["refund"],"constraints":{"requireApproval":{}}}]}""".formatted(alice.id())).json();
        String pending = http.post(
                        "/authorize",
                        waiting.get("token").asText(),
                        "{\"agentId\":\"" + waiting.get("id").asText()
                                + "\",\"action\":\"refund\",\"resource\":\"pay:9\"}")
                .json()
                .get("approvalId")
                .asText();
        Http.Response page = answer(200, "GET", "/console/approvals", withCookie("/console/approvals", session));
        assertThat(page.body()).contains(pending);
        answer(302, "GET", "/console/approvals", http.get("/console/approvals", null));
        Matcher csrf = OAuthDriver.CSRF_COOKIE.matcher(page.header("Set-Cookie").orElseThrow());
        assertThat(csrf.find()).isTrue();
        String cookies = session + "; " + csrf.group(1);
        Map<String, String> form = new java.util.HashMap<>(OAuthDriver.hiddenFields(page.body()));
        form.put("note", "fine");
        String approve = "/console/approvals/" + pending + "/approve";
        answer(
                403,
                "POST",
                "/console/approvals/{id}/{decision}",
                oauth.postForm(approve, Map.of("csrf", "guess"), session));
        answer(302, "POST", "/console/approvals/{id}/{decision}", oauth.postForm(approve, Map.of(), null));
        answer(
                400,
                "POST",
                "/console/approvals/{id}/{decision}",
                oauth.postForm("/console/approvals/" + pending + "/perhaps", form, cookies));
        answer(
                404,
                "POST",
                "/console/approvals/{id}/{decision}",
                oauth.postForm("/console/approvals/apr_doesnotexist/approve", form, cookies));
        answer(303, "POST", "/console/approvals/{id}/{decision}", oauth.postForm(approve, form, cookies));
        answer(
                409,
                "POST",
                "/console/approvals/{id}/{decision}",
                oauth.postForm("/console/approvals/" + pending + "/deny", form, cookies));
    }

    private void auditAndDashboard() {
        answer(200, "GET", "/audit", http.get("/audit?agentId=" + triage.id() + "&limit=10", alice.session()));
        answer(
                200,
                "GET",
                "/audit",
                http.get("/audit?result=denied&actions=read,delete&since=2020-01-01T00:00:00Z", admin));
        answer(400, "GET", "/audit", http.get("/audit?limit=0", alice.session()));
        answer(200, "GET", "/audit/export", http.get("/audit/export?format=json", alice.session()));
        answer(200, "GET", "/audit/export", http.get("/audit/export?format=csv&since=2020-01-01T00:00:00Z", admin));
        answer(400, "GET", "/audit/export", http.get("/audit/export?format=xml", alice.session()));
        answer(
                200,
                "GET",
                "/audit/export",
                http.send(http.builder("/audit/export", admin)
                        .header("Accept", "text/csv")
                        .GET()));
        answer(
                406,
                "GET",
                "/audit/export",
                http.send(http.builder("/audit/export", admin)
                        .header("Accept", "image/png")
                        .GET()));
        answer(200, "GET", "/audit/stats", http.get("/audit/stats", admin));
        answer(403, "GET", "/audit/stats", http.get("/audit/stats", alice.session()));
        answer(200, "GET", "/dashboard/stats", http.get("/dashboard/stats", alice.session()));
        answer(200, "GET", "/dashboard/stats", http.get("/dashboard/stats", admin));
        answer(403, "GET", "/dashboard/stats", http.get("/dashboard/stats", triage.token()));
    }

    private void webhooks() {
        String mine = answer(201, "POST", "/webhooks", http.post("/webhooks", alice.session(), """
                {"url":"http://127.0.0.1:9/warden","eventTypes":["agent.created","agent.revoked"],
                 "description":"ops pager"}"""))
                .json()
                .get("id")
                .asText();
        String admins = answer(
                        201,
                        "POST",
                        "/webhooks",
                        http.post("/webhooks", admin, "{\"url\":\"http://127.0.0.1:9/everything\"}"))
                .json()
                .get("id")
                .asText();
        answer(
                400,
                "POST",
                "/webhooks",
                http.post("/webhooks", alice.session(), "{\"url\":\"ftp://example.org/x\",\"eventTypes\":[\"nope\"]}"));
        answer(
                403,
                "POST",
                "/webhooks",
                http.post("/webhooks", triage.token(), "{\"url\":\"http://127.0.0.1:9/agent\"}"));
        answer(200, "GET", "/webhooks", http.get("/webhooks", alice.session()));
        answer(200, "GET", "/webhooks", http.get("/webhooks", admin));
        answer(200, "GET", "/webhooks/{id}", http.get("/webhooks/" + mine, alice.session()));
        answer(404, "GET", "/webhooks/{id}", http.get("/webhooks/" + mine, bob.session()));
        answer(204, "DELETE", "/webhooks/{id}", http.delete("/webhooks/" + mine, alice.session()));
        answer(204, "DELETE", "/webhooks/{id}", http.delete("/webhooks/" + admins, admin));
        answer(404, "DELETE", "/webhooks/{id}", http.delete("/webhooks/" + mine, alice.session()));
    }

    /**
     * Alice's Shared Signals receiver (a service agent authenticating with client credentials) manages a poll stream
     * and a push stream; Bob reaches the limit of streams; nobody else sees Alice's receiver's streams.
     */
    private void sharedSignals() {
        answer(200, "GET", "/.well-known/ssf-configuration", http.get("/.well-known/ssf-configuration", null));
        JsonNode receiver = answer(
                        201, "POST", "/agents", http.post("/agents", alice.session(), """
                {"ownerId":"%s","name":"ssf-receiver","type":"service",
                 "permissions":[{"resource":"ssf","actions":["read","write"]}]}""".formatted(alice.id())))
                .json();
        String token =
                receiverToken(receiver.get("id").asText(), receiver.get("token").asText());

        String create = "/ssf/streams";
        String poll = answer(201, "POST", create, http.post(create, token, """
                {"delivery":{"method":"urn:ietf:rfc:8936"},"description":"contract poll"}"""))
                .json()
                .get("stream_id")
                .asText();
        String push = answer(201, "POST", create, http.post(create, token, """
                {"delivery":{"method":"urn:ietf:rfc:8935","endpoint_url":"http://127.0.0.1:9/ssf",
                 "authorization_header":"Bearer contract"},
                 "events_requested":["https://schemas.openid.net/secevent/caep/event-type/session-revoked",
                                     "https://example.com/not-an-event-warden-sends"]}"""))
                .json()
                .get("stream_id")
                .asText();
        answer(400, "POST", create, http.post(create, token, "{\"delivery\":{\"method\":\"smoke-signals\"}}"));
        answer(401, "POST", create, http.post(create, null, "{}"));
        answer(403, "POST", create, http.post(create, readOnlyToken, "{}"));
        for (int i = 0; i < 20; i++) {
            assertThat(http.post(create, bob.session(), "{}").status()).isEqualTo(201);
        }
        Http.Response limited = answer(409, "POST", create, http.post(create, bob.session(), "{}"));
        assertThat(limited.json().get("code").asText()).isEqualTo("stream_limit_reached");

        answer(200, "GET", "/ssf/streams", http.get("/ssf/streams", token));
        answer(200, "GET", "/ssf/streams", http.get("/ssf/streams?stream_id=" + push, token));
        answer(200, "GET", "/ssf/streams", http.get("/ssf/streams", admin));
        answer(400, "GET", "/ssf/streams", http.get("/ssf/streams?stream_id=%20x", token));
        Http.Response foreign =
                answer(404, "GET", "/ssf/streams", http.get("/ssf/streams?stream_id=" + poll, bob.session()));
        assertThat(foreign.json().get("code").asText()).isEqualTo("stream_not_found");
        answer(403, "GET", "/ssf/streams", http.get("/ssf/streams", readOnlyToken));
        answer(
                200,
                "PATCH",
                "/ssf/streams",
                http.patch("/ssf/streams", token, "{\"stream_id\":\"" + poll + "\",\"description\":\"renamed\"}"));
        answer(
                400,
                "PATCH",
                "/ssf/streams",
                http.patch(
                        "/ssf/streams",
                        token,
                        "{\"stream_id\":\"" + poll + "\",\"delivery\":{\"method\":\"urn:ietf:rfc:8935\","
                                + "\"endpoint_url\":\"http://127.0.0.1:9/x\"}}"));
        answer(
                404,
                "PATCH",
                "/ssf/streams",
                http.patch("/ssf/streams", bob.session(), "{\"stream_id\":\"" + poll + "\"}"));
        answer(
                200,
                "PUT",
                "/ssf/streams",
                http.put(
                        "/ssf/streams",
                        token,
                        "{\"stream_id\":\"" + push + "\",\"iss\":\"ignored\",\"delivery\":{\"method\":"
                                + "\"urn:ietf:rfc:8935\",\"endpoint_url\":\"http://127.0.0.1:9/ssf2\"}}"));
        answer(400, "PUT", "/ssf/streams", http.put("/ssf/streams", token, "{\"description\":\"no id\"}"));
        // A push stream keeps an endpoint: replacing or patching its delivery away is refused
        answer(400, "PUT", "/ssf/streams", http.put("/ssf/streams", token, "{\"stream_id\":\"" + push + "\"}"));
        answer(
                400,
                "PATCH",
                "/ssf/streams",
                http.patch("/ssf/streams", token, "{\"stream_id\":\"" + push + "\",\"delivery\":null}"));
        assertThat(http.get("/ssf/streams?stream_id=" + push, token)
                        .json()
                        .at("/delivery/endpoint_url")
                        .asText())
                .isEqualTo("http://127.0.0.1:9/ssf2");

        answer(200, "GET", "/ssf/status", http.get("/ssf/status?stream_id=" + poll, token));
        answer(400, "GET", "/ssf/status", http.get("/ssf/status", token));
        answer(404, "GET", "/ssf/status", http.get("/ssf/status?stream_id=ssf_doesnotexist", token));
        answer(
                200,
                "POST",
                "/ssf/status",
                http.post(
                        "/ssf/status",
                        token,
                        "{\"stream_id\":\"" + poll + "\",\"status\":\"paused\",\"reason\":\"maintenance\"}"));
        answer(
                200,
                "POST",
                "/ssf/status",
                http.post("/ssf/status", token, "{\"stream_id\":\"" + poll + "\",\"status\":\"enabled\"}"));
        answer(
                400,
                "POST",
                "/ssf/status",
                http.post("/ssf/status", token, "{\"stream_id\":\"" + poll + "\",\"status\":\"on\"}"));

        String subject =
                "{\"stream_id\":\"" + poll + "\",\"subject\":{\"format\":\"opaque\",\"id\":\"" + triage.id() + "\"}}";
        answer(204, "POST", "/ssf/subjects/remove", http.post("/ssf/subjects/remove", token, subject));
        answer(
                400,
                "POST",
                "/ssf/subjects/remove",
                http.post(
                        "/ssf/subjects/remove",
                        token,
                        "{\"stream_id\":\"" + poll + "\",\"subject\":{\"format\":\"email\"}}"));
        answer(200, "POST", "/ssf/subjects/add", http.post("/ssf/subjects/add", token, subject));
        answer(404, "POST", "/ssf/subjects/add", http.post("/ssf/subjects/add", bob.session(), subject));

        String verify = "{\"stream_id\":\"" + poll + "\",\"state\":\"contract\"}";
        answer(204, "POST", "/ssf/verify", http.post("/ssf/verify", token, verify));
        Http.Response tooSoon = answer(429, "POST", "/ssf/verify", http.post("/ssf/verify", token, verify));
        assertThat(tooSoon.json().get("code").asText()).isEqualTo("verification_too_soon");
        assertThat(tooSoon.header("Retry-After")).isPresent();
        answer(404, "POST", "/ssf/verify", http.post("/ssf/verify", bob.session(), verify));
        String bobs = http.get("/ssf/streams", bob.session())
                .json()
                .get(0)
                .get("stream_id")
                .asText();
        assertThat(http.post("/ssf/status", bob.session(), "{\"stream_id\":\"" + bobs + "\",\"status\":\"disabled\"}")
                        .status())
                .isEqualTo(200);
        answer(409, "POST", "/ssf/verify", http.post("/ssf/verify", bob.session(), "{\"stream_id\":\"" + bobs + "\"}"));

        String pollPath = "/ssf/poll/" + poll;
        JsonNode sets = answer(
                        200, "POST", "/ssf/poll/{streamId}", http.post(pollPath, token, "{\"returnImmediately\":true}"))
                .json()
                .get("sets");
        assertThat(sets.size()).as("the verification event").isPositive();
        answer(
                200,
                "POST",
                "/ssf/poll/{streamId}",
                http.post(
                        pollPath,
                        token,
                        "{\"returnImmediately\":true,\"maxEvents\":0,\"ack\":[\""
                                + sets.fieldNames().next() + "\"],\"setErrs\":{\"x\":{\"err\":\"invalid_key\"}}}"));
        answer(400, "POST", "/ssf/poll/{streamId}", http.post(pollPath, token, "{\"maxEvents\":100000}"));
        answer(404, "POST", "/ssf/poll/{streamId}", http.post(pollPath, bob.session(), "{\"returnImmediately\":true}"));
        answer(
                409,
                "POST",
                "/ssf/poll/{streamId}",
                http.post("/ssf/poll/" + push, token, "{\"returnImmediately\":true}"));
        answer(401, "POST", "/ssf/poll/{streamId}", http.post(pollPath, null, "{}"));

        answer(400, "DELETE", "/ssf/streams", http.delete("/ssf/streams", token));
        answer(404, "DELETE", "/ssf/streams", http.delete("/ssf/streams?stream_id=" + push, bob.session()));
        answer(204, "DELETE", "/ssf/streams", http.delete("/ssf/streams?stream_id=" + push, token));
        answer(404, "DELETE", "/ssf/streams", http.delete("/ssf/streams?stream_id=" + push, token));
    }

    /** A client-credentials access token with both Shared Signals scopes, for Alice's service agent {@code id}. */
    private String receiverToken(String id, String secret) {
        answer(201, "POST", "/agents/{id}/oauth-client", http.post("/agents/" + id + "/oauth-client", alice.session()));
        String basic =
                java.util.Base64.getEncoder().encodeToString((id + ":" + secret).getBytes(StandardCharsets.UTF_8));
        return answer(
                        200,
                        "POST",
                        "/oauth/token",
                        http.send(http.builder("/oauth/token", null)
                                .header("Authorization", "Basic " + basic)
                                .header("Content-Type", "application/x-www-form-urlencoded")
                                .POST(HttpRequest.BodyPublishers.ofString(
                                        "grant_type=client_credentials&scope=ssf%3Aread+ssf%3Awrite"))))
                .json()
                .get("access_token")
                .asText();
    }

    private void organizations() {
        String acme = answer(
                        201,
                        "POST",
                        "/admin/v1/organizations",
                        http.post("/admin/v1/organizations", alice.session(), "{\"name\":\"Acme\"}"))
                .json()
                .get("id")
                .asText();
        answer(
                403,
                "POST",
                "/admin/v1/organizations",
                http.post("/admin/v1/organizations", triage.token(), "{\"name\":\"Agents Inc\"}"));
        answer(200, "GET", "/admin/v1/organizations", http.get("/admin/v1/organizations", alice.session()));
        answer(200, "GET", "/admin/v1/active-organization", http.get("/admin/v1/active-organization", alice.session()));
        answer(200, "GET", ORG, http.get(org(acme, ""), alice.session()));
        answer(
                201,
                "POST",
                ORG + "/members",
                http.post(
                        org(acme, "/members"),
                        alice.session(),
                        "{\"userId\":\"" + bob.id() + "\",\"role\":\"member\"}"));
        answer(
                409,
                "POST",
                ORG + "/members",
                http.post(
                        org(acme, "/members"),
                        alice.session(),
                        "{\"userId\":\"" + bob.id() + "\",\"role\":\"member\"}"));
        answer(
                404,
                "POST",
                ORG + "/members",
                http.post(org(acme, "/members"), alice.session(), "{\"userId\":\"usr_nobody\",\"role\":\"member\"}"));
        answer(200, "GET", ORG + "/members", http.get(org(acme, "/members"), alice.session()));
        answer(
                200,
                "PATCH",
                ORG + "/members/{userID}",
                http.patch(org(acme, "/members/" + bob.id()), alice.session(), "{\"role\":\"admin\"}"));
        answer(
                400,
                "PATCH",
                ORG + "/members/{userID}",
                http.patch(org(acme, "/members/" + bob.id()), alice.session(), "{\"role\":\"emperor\"}"));

        consoleOrganization(acme);
        answer(200, "GET", ORG + "/roles", http.get(org(acme, "/roles"), alice.session()));
        answer(
                400,
                "POST",
                ORG + "/roles",
                http.post(
                        org(acme, "/roles"),
                        alice.session(),
                        "{\"name\":\"auditor\",\"permissions\":[\"agents:destroy\"]}"));
        answer(
                201,
                "POST",
                ORG + "/roles",
                http.post(
                        org(acme, "/roles"),
                        alice.session(),
                        "{\"name\":\"auditor\",\"permissions\":[\"agents:read\",\"delegations:read\"]}"));
        answer(204, "DELETE", ORG + "/roles/{role}", http.delete(org(acme, "/roles/auditor"), alice.session()));
        answer(404, "DELETE", ORG + "/roles/{role}", http.delete(org(acme, "/roles/auditor"), alice.session()));

        administerAgents(acme);

        String bobco = answer(
                        201,
                        "POST",
                        "/admin/v1/organizations",
                        http.post("/admin/v1/organizations", bob.session(), "{\"name\":\"Bobco\"}"))
                .json()
                .get("id")
                .asText();
        Http.Response mismatch =
                answer(403, "GET", ORG + "/members", http.get(org(bobco, "/members"), alice.session()));
        assertThat(mismatch.json().get("code").asText()).isEqualTo("org_mismatch");
        answer(
                200,
                "PUT",
                "/admin/v1/active-organization",
                http.put("/admin/v1/active-organization", bob.session(), "{\"organizationId\":\"" + bobco + "\"}"));
        answer(
                403,
                "PUT",
                "/admin/v1/active-organization",
                http.put("/admin/v1/active-organization", carol.session(), "{\"organizationId\":\"" + acme + "\"}"));
        Http.Response none = answer(
                403,
                "GET",
                "/admin/v1/active-organization",
                http.get("/admin/v1/active-organization", carol.session()));
        assertThat(none.json().get("code").asText()).isEqualTo("no_active_org");
        answer(
                204,
                "DELETE",
                ORG + "/members/{userID}",
                http.delete(org(acme, "/members/" + bob.id()), alice.session()));
    }

    /** The organization's agents and delegations, paged with cursors and administered. */
    private void administerAgents(String acme) {
        Agent source = createAgent(alice, """
                {"ownerId":"%s","name":"org-source","type":"autonomous",
                 "permissions":[{"resource":"doc:*","actions":["read"]}]}""".formatted(alice.id()));
        Agent target = createAgent(alice, simpleAgent(alice.id(), "org-target", "autonomous"));
        JsonNode first = answer(200, "GET", ORG + "/agents", http.get(org(acme, "/agents?limit=1"), alice.session()))
                .json();
        String cursor = URLEncoder.encode(first.get("nextCursor").asText(), StandardCharsets.UTF_8);
        answer(200, "GET", ORG + "/agents", http.get(org(acme, "/agents?limit=1&cursor=" + cursor), alice.session()));
        answer(400, "GET", ORG + "/agents", http.get(org(acme, "/agents?cursor=forged.cursor"), alice.session()));
        answer(
                200,
                "GET",
                ORG + "/agents",
                http.get(org(acme, "/agents?status=active&type=autonomous"), alice.session()));
        answer(200, "GET", ORG + "/agents/{agentID}", http.get(org(acme, "/agents/" + source.id()), alice.session()));
        answer(404, "GET", ORG + "/agents/{agentID}", http.get(org(acme, "/agents/" + triage.id()), alice.session()));

        String delegation = answer(
                        201, "POST", "/delegations", http.post("/delegations", alice.session(), """
                {"fromAgent":"%s","toAgent":"%s","permissions":[{"resource":"doc:reports:*","actions":["read"]}]}""".formatted(
                                        source.id(), target.id())))
                .json()
                .get("id")
                .asText();
        answer(200, "GET", ORG + "/delegations", http.get(org(acme, "/delegations?limit=5"), alice.session()));
        answer(
                200,
                "GET",
                ORG + "/delegations/{delegationID}",
                http.get(org(acme, "/delegations/" + delegation), alice.session()));
        answer(
                400,
                "POST",
                ORG + "/delegations/{delegationID}/{action}",
                http.post(org(acme, "/delegations/" + delegation + "/extend"), alice.session()));
        answer(
                204,
                "POST",
                ORG + "/delegations/{delegationID}/{action}",
                http.post(org(acme, "/delegations/" + delegation + "/revoke"), alice.session()));
        answer(
                404,
                "GET",
                ORG + "/delegations/{delegationID}",
                http.get(org(acme, "/delegations/dlg_doesnotexist"), alice.session()));

        String agent = org(acme, "/agents/" + source.id());
        answer(200, "POST", ORG + "/agents/{agentID}/{action}", http.post(agent + "/suspend", alice.session()));
        answer(400, "POST", ORG + "/agents/{agentID}/{action}", http.post(agent + "/frobnicate", alice.session()));
        answer(200, "POST", ORG + "/agents/{agentID}/{action}", http.post(agent + "/revoke", alice.session()));
        answer(409, "POST", ORG + "/agents/{agentID}/{action}", http.post(agent + "/resume", alice.session()));
    }

    private void accountRoutes() {
        answer(200, "GET", "/account/agents", http.get("/account/agents", alice.session()));
        answer(200, "GET", "/account/agents", http.get("/account/agents?status=active&type=service", alice.session()));
        answer(403, "GET", "/account/agents", http.get("/account/agents", aliceApiToken));
        answer(401, "GET", "/account/agents", http.get("/account/agents", null));
        answer(200, "GET", "/account/agents/{id}", http.get("/account/agents/" + triage.id(), alice.session()));
        answer(404, "GET", "/account/agents/{id}", http.get("/account/agents/agt_doesnotexist", alice.session()));

        String delegation = answer(
                        201, "POST", "/delegations", http.post("/delegations", alice.session(), """
                {"fromAgent":"%s","toAgent":"%s",
                 "permissions":[{"resource":"mcp:github:issues:*","actions":["read"]}]}""".formatted(
                                        triage.id(), indexer.id())))
                .json()
                .get("id")
                .asText();
        answer(200, "GET", "/account/delegations", http.get("/account/delegations", alice.session()));
        answer(
                204,
                "DELETE",
                "/account/delegations/{id}",
                http.delete("/account/delegations/" + delegation, alice.session()));
        answer(
                404,
                "DELETE",
                "/account/delegations/{id}",
                http.delete("/account/delegations/dlg_doesnotexist", alice.session()));
        Agent spare = createAgent(alice, simpleAgent(alice.id(), "spare", "autonomous"));
        answer(204, "DELETE", "/account/agents/{id}", http.delete("/account/agents/" + spare.id(), alice.session()));
    }

    private void oauth() {
        OAuthDriver oauth = new OAuthDriver(http);
        String client = answer(201, "POST", "/mcp/register", http.post("/mcp/register", null, """
                {"client_name":"contract client","redirect_uris":["%s"],"token_endpoint_auth_method":"none",
                 "grant_types":["authorization_code","refresh_token"]}""".formatted(
                                OAuthDriver.REDIRECT)))
                .json()
                .get("client_id")
                .asText();
        answer(
                400,
                "POST",
                "/mcp/register",
                http.post("/mcp/register", null, "{\"redirect_uris\":[\"javascript:alert(1)\"]}"));
        answer(
                403,
                "POST",
                "/oauth/register",
                http.post(
                        "/oauth/register",
                        null,
                        "{\"client_name\":\"gated\",\"redirect_uris\":[\"" + OAuthDriver.REDIRECT + "\"]}"));

        OAuthDriver.Pkce pkce = OAuthDriver.Pkce.fresh();
        String authorize = "/mcp/authorize?" + OAuthDriver.encode(OAuthDriver.request(client, pkce, "xyz"));
        answer(302, "GET", "/mcp/authorize", http.get(authorize, null));
        answer(400, "GET", "/mcp/authorize", http.get("/mcp/authorize?response_type=code", null));
        answer(400, "GET", "/oauth/authorize", http.get("/oauth/authorize?client_id=nobody", null));
        answer(
                200,
                "GET",
                "/oauth/login",
                http.get("/oauth/login?return_to=" + URLEncoder.encode(authorize, StandardCharsets.UTF_8), null));
        answer(
                403,
                "POST",
                "/oauth/login",
                oauth.postForm("/oauth/login", Map.of("username", "alice_contract", "password", PASSWORD), null));
        answer(
                403,
                "POST",
                "/oauth/totp",
                oauth.postForm("/oauth/totp", Map.of("challenge", "wdn_chl_x", "code", "123456"), null));
        answer(
                403,
                "POST",
                "/oauth/passkey",
                oauth.postForm("/oauth/passkey", Map.of("ceremony", "wdn_wac_x", "credential", "{}"), null));
        answer(200, "GET", "/oauth/assets/passkey.js", http.get("/oauth/assets/passkey.js", null));

        String session = "warden_session=" + alice.session();
        String consent = answer(302, "GET", "/mcp/authorize", withCookie(authorize, session))
                .header("Location")
                .orElseThrow();
        assertThat(consent).startsWith("/oauth/consent?");
        Http.Response page = answer(200, "GET", "/oauth/consent", withCookie(consent, session));
        Matcher csrf = OAuthDriver.CSRF_COOKIE.matcher(page.header("Set-Cookie").orElseThrow());
        assertThat(csrf.find()).isTrue();
        Map<String, String> decision = OAuthDriver.hiddenFields(page.body());
        decision.put("decision", "allow");
        answer(403, "POST", "/oauth/consent", oauth.postForm("/oauth/consent", decision, session));
        URI back = URI.create(answer(
                        303,
                        "POST",
                        "/oauth/consent",
                        oauth.postForm("/oauth/consent", decision, session + "; " + csrf.group(1)))
                .header("Location")
                .orElseThrow());
        String code = OAuthDriver.query(back).get("code");

        JsonNode tokens = answer(200, "POST", "/mcp/token", oauth.exchange(client, code, pkce))
                .json();
        String access = tokens.get("access_token").asText();
        answer(200, "GET", "/agents", http.get("/agents", access));
        answer(
                200,
                "POST",
                "/oauth/introspect",
                oauth.postForm("/oauth/introspect", Map.of("token", access, "client_id", client), null));
        JsonNode refreshed = answer(
                        200,
                        "POST",
                        "/mcp/token",
                        oauth.token(Map.of(
                                "grant_type",
                                "refresh_token",
                                "refresh_token",
                                tokens.get("refresh_token").asText(),
                                "client_id",
                                client)))
                .json();
        String refresh = refreshed.get("refresh_token").asText();
        answer(
                200,
                "POST",
                "/oauth/revoke",
                oauth.postForm("/oauth/revoke", Map.of("token", refresh, "client_id", client), null));
        JsonNode inactive = answer(
                        200,
                        "POST",
                        "/oauth/introspect",
                        oauth.postForm("/oauth/introspect", Map.of("token", refresh, "client_id", client), null))
                .json();
        assertThat(inactive.get("active").asBoolean()).isFalse();
        answer(400, "POST", "/oauth/revoke", oauth.postForm("/oauth/revoke", Map.of("client_id", client), null));

        answer(
                400,
                "POST",
                "/mcp/token",
                oauth.token(Map.of(
                        "grant_type",
                        "authorization_code",
                        "code",
                        "wdn_cod_bogus",
                        "redirect_uri",
                        OAuthDriver.REDIRECT,
                        "client_id",
                        client,
                        "code_verifier",
                        pkce.verifier())));
        answer(
                401,
                "POST",
                "/mcp/token",
                oauth.token(Map.of("grant_type", "refresh_token", "refresh_token", "x", "client_id", "not-a-client")));
        answer(
                400,
                "POST",
                "/oauth/token",
                oauth.postForm("/oauth/token", Map.of("grant_type", "password", "client_id", client), null));
        answer(
                401,
                "POST",
                "/oauth/introspect",
                oauth.postForm("/oauth/introspect", Map.of("token", access, "client_id", "not-a-client"), null));

        answer(
                400,
                "POST",
                "/auth/device/code",
                oauth.postForm("/auth/device/code", Map.of("client_id", client), null));
        answer(
                401,
                "POST",
                "/oauth/bc-authorize",
                oauth.postForm(
                        "/oauth/bc-authorize",
                        Map.of("client_id", "agt_nosuchagent", "client_secret", "x", "scope", "agents:read"),
                        null));
        answer(302, "GET", "/auth/device", http.get("/auth/device?user_code=BCDF-GHJK", null));
        answer(200, "GET", "/auth/device", withCookie("/auth/device", session));
        answer(
                403,
                "POST",
                "/auth/device/verify",
                oauth.postForm("/auth/device/verify", Map.of("user_code", "BCDF-GHJK"), session));
    }

    private void mcp() {
        String initialize = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                + "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"contract-it\",\"version\":\"1\"}}}";
        answer(200, "POST", "/mcp", http.post("/mcp", alice.session(), initialize));
        answer(
                200,
                "POST",
                "/mcp",
                http.post("/mcp", alice.session(), "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}"));
        answer(
                200,
                "POST",
                "/mcp",
                http.post(
                        "/mcp",
                        alice.session(),
                        "{\"jsonrpc\":\"2.0\",\"id\":\"3\","
                                + "\"method\":\"tools/call\",\"params\":{\"name\":\"dashboard_stats\",\"arguments\":{}}}"));
        answer(
                200,
                "POST",
                "/mcp",
                http.post("/mcp", alice.session(), "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"nope\"}"));
        answer(
                202,
                "POST",
                "/mcp",
                http.post("/mcp", alice.session(), "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"));
        answer(400, "POST", "/mcp", http.post("/mcp", alice.session(), "[1]"));
        answer(
                400,
                "POST",
                "/mcp",
                http.send(http.builder("/mcp", alice.session())
                        .header("Content-Type", "application/json")
                        .header("MCP-Protocol-Version", "1999-01-01")
                        .POST(HttpRequest.BodyPublishers.ofString(initialize))));
        answer(401, "POST", "/mcp", http.post("/mcp", null, initialize));
        answer(405, "GET", "/mcp", http.get("/mcp", alice.session()));
        answer(405, "DELETE", "/mcp", http.delete("/mcp", alice.session()));
    }

    private void eventStream() {
        Http.Response refused = answer(
                200,
                "GET",
                "/events/stream",
                http.send(http.builder("/events/stream", "wdn_api_not-a-real-token")
                        .header("Accept", "text/event-stream")
                        .GET()));
        assertThat(refused.body()).contains("event: error").contains("UNAUTHORIZED");
        answer(
                400,
                "GET",
                "/events/stream",
                http.send(http.builder("/events/stream?types=nope", admin)
                        .header("Accept", "text/event-stream")
                        .GET()));
        answer(406, "GET", "/events/stream", http.get("/events/stream", admin));
    }

    /** Alice's browser in the console: the pages, and suspending and resuming the indexer after confirming. */
    private void console() {
        OAuthDriver oauth = new OAuthDriver(http);
        String session = "warden_session=" + alice.session();
        answer(302, "GET", "/console", http.get("/console", null));
        answer(302, "GET", "/console/feed", http.get("/console/feed", null));
        answer(200, "GET", "/console/feed", withCookie("/console/feed", session));
        answer(302, "GET", "/console/agents", http.get("/console/agents", null));
        answer(200, "GET", "/console/agents", withCookie("/console/agents", session));
        answer(302, "GET", "/console/audit", http.get("/console/audit", null));
        answer(200, "GET", "/console/audit", withCookie("/console/audit?result=allowed&offset=0", session));
        answer(400, "GET", "/console/audit", withCookie("/console/audit?since=yesterday", session));
        answer(200, "GET", "/console/assets/{name}", http.get("/console/assets/console.css", null));
        answer(404, "GET", "/console/assets/{name}", http.get("/console/assets/nothing.js", null));
        answer(
                302,
                "GET",
                "/console/agents/{id}/{action}",
                http.get("/console/agents/" + indexer.id() + "/suspend", null));
        answer(
                404,
                "GET",
                "/console/agents/{id}/{action}",
                withCookie("/console/agents/" + indexer.id() + "/frobnicate", session));
        for (String action : java.util.List.of("suspend", "resume")) {
            Http.Response confirm = answer(
                    200,
                    "GET",
                    "/console/agents/{id}/{action}",
                    withCookie("/console/agents/" + indexer.id() + "/" + action, session));
            Matcher csrf =
                    OAuthDriver.CSRF_COOKIE.matcher(confirm.header("Set-Cookie").orElseThrow());
            assertThat(csrf.find()).isTrue();
            String path = "/console/agents/" + indexer.id() + "/" + action;
            answer(
                    403,
                    "POST",
                    "/console/agents/{id}/{action}",
                    oauth.postForm(path, Map.of("csrf", "guess"), session));
            answer(
                    303,
                    "POST",
                    "/console/agents/{id}/{action}",
                    oauth.postForm(path, OAuthDriver.hiddenFields(confirm.body()), session + "; " + csrf.group(1)));
        }
        answer(
                302,
                "POST",
                "/console/agents/{id}/{action}",
                oauth.postForm("/console/agents/x/suspend", Map.of(), null));
        answer(302, "GET", "/console/agents/{id}", http.get("/console/agents/" + indexer.id(), null));
        answer(200, "GET", "/console/agents/{id}", withCookie("/console/agents/" + indexer.id(), session));
        answer(
                404,
                "GET",
                "/console/agents/{id}",
                withCookie("/console/agents/" + indexer.id(), "warden_session=" + bob.session()));
        answer(302, "GET", "/console/dashboard", http.get("/console/dashboard", null));
        answer(200, "GET", "/console/dashboard", withCookie("/console/dashboard", session));
        String entry = http.get("/audit?agentId=" + triage.id() + "&limit=1", alice.session())
                .json()
                .get(0)
                .get("id")
                .asText();
        answer(200, "GET", "/console/audit/{id}", withCookie("/console/audit/" + entry, session));
        answer(
                404,
                "GET",
                "/console/audit/{id}",
                withCookie("/console/audit/" + entry, "warden_session=" + bob.session()));
        answer(302, "GET", "/console/audit/{id}", http.get("/console/audit/" + entry, null));
        String delegation = http.post("/delegations", alice.session(), """
                {"fromAgent":"%s","toAgent":"%s","permissions":[{"resource":"mcp:github:issues:*","actions":["read"]}]}""".formatted(triage.id(), indexer.id()))
                .json()
                .get("id")
                .asText();
        answer(200, "GET", "/console/delegations", withCookie("/console/delegations", session));
        answer(302, "GET", "/console/delegations", http.get("/console/delegations", null));
        String revoke = "/console/delegations/" + delegation + "/revoke";
        answer(404, "GET", "/console/delegations/{id}/revoke", withCookie(revoke, "warden_session=" + bob.session()));
        answer(302, "GET", "/console/delegations/{id}/revoke", http.get(revoke, null));
        Http.Response confirmRevoke =
                answer(200, "GET", "/console/delegations/{id}/revoke", withCookie(revoke, session));
        Matcher revokeCsrf = OAuthDriver.CSRF_COOKIE.matcher(
                confirmRevoke.header("Set-Cookie").orElseThrow());
        assertThat(revokeCsrf.find()).isTrue();
        answer(
                403,
                "POST",
                "/console/delegations/{id}/revoke",
                oauth.postForm(revoke, Map.of("csrf", "guess"), session));
        answer(302, "POST", "/console/delegations/{id}/revoke", oauth.postForm(revoke, Map.of(), null));
        answer(
                303,
                "POST",
                "/console/delegations/{id}/revoke",
                oauth.postForm(
                        revoke, OAuthDriver.hiddenFields(confirmRevoke.body()), session + "; " + revokeCsrf.group(1)));
        assertThat(http.get("/delegations?fromAgent=" + triage.id(), alice.session())
                        .body())
                .as("revoked through the console")
                .doesNotContain(delegation);
        consoleApprovals(oauth, session);
        consoleWebhooks(oauth, session);
        answer(302, "GET", "/console/health", http.get("/console/health", null));
        answer(403, "GET", "/console/health", withCookie("/console/health", session));
        answer(302, "POST", "/console/administrator", oauth.postForm("/console/administrator", Map.of(), null));
        answer(302, "POST", "/console/administrator/end", oauth.postForm("/console/administrator/end", Map.of(), null));
        Http.Response front = withCookie("/console/feed", session);
        Matcher frontCsrf =
                OAuthDriver.CSRF_COOKIE.matcher(front.header("Set-Cookie").orElseThrow());
        assertThat(frontCsrf.find()).isTrue();
        Map<String, String> frontForm = OAuthDriver.hiddenFields(front.body());
        answer(
                403,
                "POST",
                "/console/administrator",
                oauth.postForm("/console/administrator", frontForm, session + "; " + frontCsrf.group(1)));
        answer(
                403,
                "POST",
                "/console/administrator/end",
                oauth.postForm("/console/administrator/end", Map.of("csrf", "guess"), session));
        answer(
                303,
                "POST",
                "/console/administrator/end",
                oauth.postForm("/console/administrator/end", frontForm, session + "; " + frontCsrf.group(1)));
        answer(302, "POST", "/console/sign-out", oauth.postForm("/console/sign-out", Map.of(), null));
        String another = "warden_session="
                + http.post("/auth/sign-in", null, "{\"username\":\"bob_contract\",\"password\":\"" + PASSWORD + "\"}")
                        .json()
                        .get("token")
                        .asText();
        answer(403, "POST", "/console/sign-out", oauth.postForm("/console/sign-out", Map.of("csrf", "guess"), another));
        Http.Response feed = withCookie("/console/feed", another);
        Matcher feedCsrf =
                OAuthDriver.CSRF_COOKIE.matcher(feed.header("Set-Cookie").orElseThrow());
        assertThat(feedCsrf.find()).isTrue();
        answer(
                303,
                "POST",
                "/console/sign-out",
                oauth.postForm(
                        "/console/sign-out",
                        OAuthDriver.hiddenFields(feed.body()),
                        another + "; " + feedCsrf.group(1)));
        answer(302, "GET", "/console/feed", withCookie("/console/feed", another));
    }

    /** Alice adds a webhook endpoint in the console (its secret shown once), is refused a bad URL, and deletes it. */
    private void consoleWebhooks(OAuthDriver oauth, String session) {
        Http.Response page = answer(200, "GET", "/console/webhooks", withCookie("/console/webhooks", session));
        answer(302, "GET", "/console/webhooks", http.get("/console/webhooks", null));
        Matcher csrf = OAuthDriver.CSRF_COOKIE.matcher(page.header("Set-Cookie").orElseThrow());
        assertThat(csrf.find()).isTrue();
        String cookies = session + "; " + csrf.group(1);
        Map<String, String> form = new java.util.HashMap<>(OAuthDriver.hiddenFields(page.body()));
        form.put("url", "http://127.0.0.1:9/console");
        form.put("eventTypes", "audit, agent.suspended");
        form.put("description", "contract");
        Http.Response added =
                answer(200, "POST", "/console/webhooks", oauth.postForm("/console/webhooks", form, cookies));
        assertThat(added.body()).contains("whsec_");
        String id = added.body().replaceAll("(?s).*data-webhook=\"(whk_[a-z0-9]+)\".*", "$1");
        assertThat(id).startsWith("whk_");
        form.put("url", "ftp://nowhere");
        answer(400, "POST", "/console/webhooks", oauth.postForm("/console/webhooks", form, cookies));
        answer(403, "POST", "/console/webhooks", oauth.postForm("/console/webhooks", Map.of("csrf", "guess"), session));
        answer(302, "POST", "/console/webhooks", oauth.postForm("/console/webhooks", Map.of(), null));
        String endpoint = "/console/webhooks/" + id;
        Http.Response shown = answer(200, "GET", "/console/webhooks/{id}", withCookie(endpoint, session));
        answer(404, "GET", "/console/webhooks/{id}", withCookie(endpoint, "warden_session=" + bob.session()));
        answer(302, "GET", "/console/webhooks/{id}", http.get(endpoint, null));
        Matcher shownCsrf =
                OAuthDriver.CSRF_COOKIE.matcher(shown.header("Set-Cookie").orElseThrow());
        assertThat(shownCsrf.find()).isTrue();
        Map<String, String> shownForm = OAuthDriver.hiddenFields(shown.body());
        for (String state : java.util.List.of("disable", "enable")) {
            String operation = "/console/webhooks/{id}/" + state;
            answer(403, "POST", operation, oauth.postForm(endpoint + "/" + state, Map.of("csrf", "guess"), session));
            answer(302, "POST", operation, oauth.postForm(endpoint + "/" + state, Map.of(), null));
            answer(
                    303,
                    "POST",
                    operation,
                    oauth.postForm(endpoint + "/" + state, shownForm, session + "; " + shownCsrf.group(1)));
        }
        String delete = "/console/webhooks/" + id + "/delete";
        answer(404, "GET", "/console/webhooks/{id}/delete", withCookie(delete, "warden_session=" + bob.session()));
        answer(404, "GET", "/console/webhooks/{id}/delete", withCookie("/console/webhooks/nope/delete", session));
        answer(302, "GET", "/console/webhooks/{id}/delete", http.get(delete, null));
        Http.Response confirm = answer(200, "GET", "/console/webhooks/{id}/delete", withCookie(delete, session));
        Matcher confirmCsrf =
                OAuthDriver.CSRF_COOKIE.matcher(confirm.header("Set-Cookie").orElseThrow());
        assertThat(confirmCsrf.find()).isTrue();
        answer(403, "POST", "/console/webhooks/{id}/delete", oauth.postForm(delete, Map.of("csrf", "guess"), session));
        answer(302, "POST", "/console/webhooks/{id}/delete", oauth.postForm(delete, Map.of(), null));
        answer(
                303,
                "POST",
                "/console/webhooks/{id}/delete",
                oauth.postForm(
                        delete, OAuthDriver.hiddenFields(confirm.body()), session + "; " + confirmCsrf.group(1)));
        assertThat(http.get("/webhooks/" + id, alice.session()).status())
                .as("deleted")
                .isEqualTo(404);
    }

    /** Alice's organization in the console: its page, and giving Bob back the member role. */
    private void consoleOrganization(String acme) {
        OAuthDriver oauth = new OAuthDriver(http);
        String session = "warden_session=" + alice.session();
        answer(200, "GET", "/console/organizations", withCookie("/console/organizations", session));
        answer(302, "GET", "/console/organizations", http.get("/console/organizations", null));
        String page = "/console/organizations/" + acme;
        Http.Response shown = answer(200, "GET", "/console/organizations/{orgID}", withCookie(page, session));
        assertThat(shown.body()).contains("bob_contract").contains("members:admin");
        answer(403, "GET", "/console/organizations/{orgID}", withCookie(page, "warden_session=" + carol.session()));
        answer(302, "GET", "/console/organizations/{orgID}", http.get(page, null));
        answer(200, "GET", "/console/organizations/{orgID}/agents", withCookie(page + "/agents", session));
        answer(
                403,
                "GET",
                "/console/organizations/{orgID}/agents",
                withCookie(page + "/agents", "warden_session=" + carol.session()));
        answer(302, "GET", "/console/organizations/{orgID}/agents", http.get(page + "/agents", null));
        Matcher csrf =
                OAuthDriver.CSRF_COOKIE.matcher(shown.header("Set-Cookie").orElseThrow());
        assertThat(csrf.find()).isTrue();
        String cookies = session + "; " + csrf.group(1);
        String token = OAuthDriver.hiddenFields(shown.body()).get("csrf");
        String change = page + "/members/" + bob.id() + "/role";
        String operation = "/console/organizations/{orgID}/members/{userID}/role";
        answer(403, "POST", operation, oauth.postForm(change, Map.of("csrf", "guess", "role", "member"), session));
        answer(302, "POST", operation, oauth.postForm(change, Map.of("role", "member"), null));
        answer(400, "POST", operation, oauth.postForm(change, Map.of("csrf", token, "role", "emperor"), cookies));
        answer(303, "POST", operation, oauth.postForm(change, Map.of("csrf", token, "role", "member"), cookies));
        assertThat(http.get(org(acme, "/members"), alice.session()).body())
                .as("Bob is a member again")
                .contains("\"role\":\"member\"");
        answer(
                200,
                "PATCH",
                ORG + "/members/{userID}",
                http.patch(org(acme, "/members/" + bob.id()), alice.session(), "{\"role\":\"admin\"}"));
    }

    private void administration() {
        answer(200, "GET", "/admin/v1/dead-letters", http.get("/admin/v1/dead-letters?limit=10", admin));
        answer(400, "GET", "/admin/v1/dead-letters", http.get("/admin/v1/dead-letters?limit=0", admin));
        answer(403, "GET", "/admin/v1/dead-letters", http.get("/admin/v1/dead-letters", alice.session()));
        answer(200, "GET", "/admin/v1/sinks", http.get("/admin/v1/sinks", admin));
        answer(403, "GET", "/admin/v1/sinks", http.get("/admin/v1/sinks", alice.session()));
        answer(200, "POST", "/admin/v1/sinks/{name}/pause", http.post("/admin/v1/sinks/contract/pause", admin, "{}"));
        answer(404, "POST", "/admin/v1/sinks/{name}/pause", http.post("/admin/v1/sinks/nope/pause", admin, "{}"));
        answer(200, "POST", "/admin/v1/sinks/{name}/resume", http.post("/admin/v1/sinks/contract/resume", admin));
        answer(
                202,
                "POST",
                "/admin/v1/sinks/{name}/replay",
                http.post("/admin/v1/sinks/contract/replay", admin, "{\"from\":\"2026-01-01T00:00:00Z\"}"));
        answer(
                400,
                "POST",
                "/admin/v1/sinks/{name}/replay",
                http.post("/admin/v1/sinks/contract/replay", admin, "{\"from\":\"later\",\"x\":1}"));
        answer(401, "GET", "/admin/v1/dead-letters", http.get("/admin/v1/dead-letters", null));
        answer(200, "GET", "/admin/v1/doctor", http.get("/admin/v1/doctor", admin));
        answer(403, "GET", "/admin/v1/doctor", http.get("/admin/v1/doctor", alice.session()));
        // The first paths, kept for old clients: the same answers, announcing the move.
        Http.Response oldDeadLetters =
                answer(200, "GET", "/admin/dead-letters", http.get("/admin/dead-letters?limit=10", admin));
        assertThat(oldDeadLetters.header("Deprecation")).hasValue("@1795737600");
        assertThat(oldDeadLetters.header("Link")).hasValue("</admin/v1/dead-letters>; rel=\"successor-version\"");
        answer(400, "GET", "/admin/dead-letters", http.get("/admin/dead-letters?limit=0", admin));
        answer(403, "GET", "/admin/dead-letters", http.get("/admin/dead-letters", alice.session()));
        answer(401, "GET", "/admin/dead-letters", http.get("/admin/dead-letters", null));
        Http.Response oldDoctor = answer(200, "GET", "/auth/admin/doctor", http.get("/auth/admin/doctor", admin));
        assertThat(oldDoctor.header("Link")).hasValue("</admin/v1/doctor>; rel=\"successor-version\"");
        answer(403, "GET", "/auth/admin/doctor", http.get("/auth/admin/doctor", alice.session()));
        assertThat(http.get("/admin/v1/doctor", admin).header("Deprecation")).isEmpty();
    }

    /**
     * Carol's passkeys: the ceremonies' options, and answers that do not verify (the browser test,
     * PasskeyBrowserIT, answers with a real authenticator).
     */
    private void passkeys(String session) {
        answer(200, "GET", "/auth/passkeys", http.get("/auth/passkeys", session));
        Http.Response options = answer(
                200,
                "POST",
                "/auth/passkeys/registration/options",
                http.post("/auth/passkeys/registration/options", session, "{}"));
        assertThat(options.json()
                        .at("/publicKey/authenticatorSelection/residentKey")
                        .asText())
                .isEqualTo("required");
        answer(
                400,
                "POST",
                "/auth/passkeys",
                http.post(
                        "/auth/passkeys",
                        session,
                        "{\"ceremony\":\"" + options.json().get("ceremony").asText() + "\",\"credential\":{}}"));
        answer(404, "DELETE", "/auth/passkeys/{id}", http.delete("/auth/passkeys/pk_unknown", session));
        Http.Response signIn = answer(
                200, "POST", "/auth/passkeys/sign-in/options", http.post("/auth/passkeys/sign-in/options", null, "{}"));
        answer(
                400,
                "POST",
                "/auth/passkeys/sign-in",
                http.post(
                        "/auth/passkeys/sign-in",
                        null,
                        "{\"ceremony\":\"" + signIn.json().get("ceremony").asText() + "\",\"credential\":{}}"));
    }

    /** Carol enrols TOTP, signs in with it, and removes it again (last: her password signs in alone after). */
    private void secondFactor() {
        String session = carol.session();
        answer(200, "GET", "/auth/totp", http.get("/auth/totp", session));
        Http.Response enrol = answer(201, "POST", "/auth/totp/enrol", http.post("/auth/totp/enrol", session));
        byte[] secret = Base32.decode(enrol.json().get("secret").asText());
        answer(400, "POST", "/auth/totp/confirm", http.post("/auth/totp/confirm", session, "{\"code\":\"x\"}"));
        Http.Response confirmed = answer(
                200,
                "POST",
                "/auth/totp/confirm",
                http.post("/auth/totp/confirm", session, "{\"code\":\"" + currentCode(secret) + "\"}"));
        String recovery = confirmed.json().at("/recoveryCodes/0").asText();
        answer(409, "POST", "/auth/totp/enrol", http.post("/auth/totp/enrol", session));
        String password = "{\"username\":\"carol_renamed\",\"password\":\"" + PASSWORD + "\"}";
        Http.Response challenged = answer(401, "POST", "/auth/sign-in", http.post("/auth/sign-in", null, password));
        String challenge = challenged.json().get("challenge").asText();
        answer(
                401,
                "POST",
                "/auth/totp/verify",
                http.post("/auth/totp/verify", null, "{\"challenge\":\"wdn_chl_unknown\",\"code\":\"123456\"}"));
        answer(400, "POST", "/auth/totp/verify", http.post("/auth/totp/verify", null, "{\"challenge\":\"x\"}"));
        warden.clock().advance(java.time.Duration.ofSeconds(30));
        answer(
                200,
                "POST",
                "/auth/totp/verify",
                http.post(
                        "/auth/totp/verify",
                        null,
                        "{\"challenge\":\"" + challenge + "\",\"code\":\"" + currentCode(secret) + "\"}"));
        passkeys(session);
        answer(
                401,
                "POST",
                "/auth/setup",
                http.post(
                        "/auth/setup",
                        null,
                        "{\"setupToken\":\"wdn_stp_x\",\"username\":\"nobody_x\",\"password\":\"" + PASSWORD + "\"}"));
        answer(
                401,
                "POST",
                "/auth/setup/complete",
                http.post("/auth/setup/complete", session, "{\"setupToken\":\"wdn_stp_x\"}"));
        answer(403, "POST", "/auth/admin-session", http.post("/auth/admin-session", session, "{}"));
        answer(400, "DELETE", "/auth/totp", deleteTotp(session, "{}"));
        answer(204, "DELETE", "/auth/totp", deleteTotp(session, "{\"recoveryCode\":\"" + recovery + "\"}"));
        answer(404, "DELETE", "/auth/totp", deleteTotp(session, "{\"code\":\"123456\"}"));
        answer(200, "POST", "/auth/sign-in", http.post("/auth/sign-in", null, password));

        Http.Response sessions = answer(200, "GET", "/auth/sessions", http.get("/auth/sessions", session));
        assertThat(sessions.json().get("sessions").size()).isGreaterThanOrEqualTo(2);
        answer(404, "DELETE", "/auth/sessions/{id}", http.delete("/auth/sessions/ses_unknown", session));
        String other =
                http.post("/auth/sign-in", null, password).json().get("token").asText();
        String otherId =
                http.get("/auth/session", other).json().at("/session/id").asText();
        answer(204, "DELETE", "/auth/sessions/{id}", http.delete("/auth/sessions/" + otherId, session));
        answer(200, "POST", "/auth/sessions/revoke-others", http.post("/auth/sessions/revoke-others", session));
        answer(200, "GET", "/auth/email", http.get("/auth/email", session));
        answer(503, "PUT", "/auth/email", http.put("/auth/email", session, "{\"email\":\"carol@example.org\"}"));
        answer(400, "POST", "/auth/email/verify", http.post("/auth/email/verify", null, "{\"token\":\"nope\"}"));
        answer(400, "GET", "/auth/email/verify", http.get("/auth/email/verify?token=nope", null));
        answer(
                503,
                "POST",
                "/auth/password-reset/request",
                http.post("/auth/password-reset/request", null, "{\"email\":\"carol@example.org\"}"));
        answer(200, "GET", "/auth/password-reset", http.get("/auth/password-reset?token=abc", null));
        answer(503, "POST", "/auth/magic-link", http.post("/auth/magic-link", null, "{\"email\":\"c@example.org\"}"));
        answer(200, "GET", "/auth/magic-link", http.get("/auth/magic-link?token=abc", null));
        answer(
                401,
                "POST",
                "/auth/magic-link/verify",
                http.post("/auth/magic-link/verify", null, "{\"token\":\"nope\"}"));
        answer(503, "POST", "/auth/email-otp", http.post("/auth/email-otp", null, "{\"email\":\"c@example.org\"}"));
        answer(
                401,
                "POST",
                "/auth/email-otp/verify",
                http.post("/auth/email-otp/verify", null, "{\"email\":\"c@example.org\",\"code\":\"123456\"}"));
        answer(
                400,
                "POST",
                "/auth/password-reset/complete",
                http.post(
                        "/auth/password-reset/complete",
                        null,
                        "{\"token\":\"nope\",\"newPassword\":\"" + PASSWORD + "\"}"));
        answer(
                400,
                "POST",
                "/auth/change-password",
                http.post("/auth/change-password", session, "{\"newPassword\":\"" + PASSWORD + "x\"}"));
        answer(
                200,
                "POST",
                "/auth/change-password",
                http.post(
                        "/auth/change-password",
                        session,
                        "{\"currentPassword\":\"" + PASSWORD + "\",\"newPassword\":\"" + PASSWORD + "\"}"));
    }

    private String currentCode(byte[] secret) {
        return Totp.code(secret, Totp.step(warden.clock().instant()));
    }

    private Http.Response deleteTotp(String session, String body) {
        return http.send(http.builder("/auth/totp", session)
                .header("Content-Type", "application/json")
                .method("DELETE", java.net.http.HttpRequest.BodyPublishers.ofString(body)));
    }

    /** Checks that {@code response} has {@code status} and is as the document says. */
    private Http.Response answer(int status, String method, String pathPattern, Http.Response response) {
        assertThat(response.status())
                .as(method + " " + pathPattern + ": " + response.body())
                .isEqualTo(status);
        return contract.validate(method, pathPattern, response);
    }

    private User signUp(String body) {
        JsonNode res = answer(201, "POST", "/auth/sign-up", http.post("/auth/sign-up", null, body))
                .json();
        return new User(res.get("user").get("id").asText(), res.get("token").asText());
    }

    private Agent createAgent(User owner, String body) {
        JsonNode res = answer(201, "POST", "/agents", http.post("/agents", owner.session(), body))
                .json();
        return new Agent(res.get("id").asText(), res.get("token").asText());
    }

    private static String simpleAgent(String ownerId, String name, String type) {
        return "{\"ownerId\":\"" + ownerId + "\",\"name\":\"" + name + "\",\"type\":\"" + type
                + "\",\"permissions\":[{\"resource\":\"mcp:github:*\",\"actions\":[\"read\"]}]}";
    }

    private static String org(String id, String rest) {
        return "/admin/v1/organizations/" + id + rest;
    }

    private Http.Response withCookie(String path, String cookie) {
        return http.send(http.builder(path, null).header("Cookie", cookie).GET());
    }

    private static String repositoryDocument() {
        try (InputStream in = OpenApiContractIT.class.getClassLoader().getResourceAsStream(OpenApiRoutes.RESOURCE)) {
            assertThat(in).as(OpenApiRoutes.RESOURCE + " on the classpath").isNotNull();
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(Json.mapper().readTree(text).path("openapi").asText()).isEqualTo("3.1.0");
            return text;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
