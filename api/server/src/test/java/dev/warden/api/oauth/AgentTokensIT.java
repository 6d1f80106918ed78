package dev.warden.api.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jwt.SignedJWT;
import dev.warden.api.oauth.AgentOAuth.User;
import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.api.users.UsersConfig;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Agents in OAuth over real HTTP against a real broker and database: token exchange (RFC 8693) from a user to
 * their agent and along a delegation chain, each delegation and agent failure class, client credentials for
 * bound service agents, and the device authorization grant (RFC 8628) through its verification page; revocation
 * of any link ends the tokens at once (introspection and the REST API).
 */
class AgentTokensIT {
    static final String EXCHANGE = AgentOAuth.EXCHANGE;
    static final String DEVICE = "urn:ietf:params:oauth:grant-type:device_code";
    static final String ACCESS = AgentOAuth.ACCESS;

    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(
            b -> b.users(UsersConfig.builder().argon2(1024, 1, 1).build())
                    .rateLimit(RateLimitConfig.builder()
                            .endpoint(AuthEndpoint.OAUTH_AUTHORIZE, 100_000, 60)
                            .endpoint(AuthEndpoint.OAUTH_INTROSPECT, 100_000, 60)
                            .endpoint(AuthEndpoint.OAUTH_REVOKE, 100_000, 60)
                            .endpoint(AuthEndpoint.OAUTH_TOKEN, 1000, 60)
                            .endpoint(AuthEndpoint.REGISTRATION, 1000, 60)
                            .endpoint(AuthEndpoint.SIGN_UP, 1000, 60)
                            .endpoint(AuthEndpoint.DEVICE_VERIFY, 1000, 60)
                            .endpoint(AuthEndpoint.DEVICE_AUTHORIZATION, 1000, 60)
                            .build())
                    .oauth(OAuthConfig.builder()
                            .devicePollInterval(Duration.ofSeconds(1))
                            .build()));

    static Http http;
    static OAuthDriver driver;
    static String issuer;
    static String client;
    static AgentOAuth fixture;

    @BeforeAll
    static void setUp() {
        http = warden.http();
        driver = new OAuthDriver(http);
        issuer = http.baseUri().toString().replaceAll("/$", "");
        fixture = AgentOAuth.withRuntimeClient(http, "agent_user_", DEVICE);
        client = fixture.client();
    }

    static User newUser() {
        return fixture.newUser();
    }

    /** The user's access token for the REST API with {@code scope}, through the code flow. */
    static String userToken(User user, String scope) {
        return fixture.userToken(user, scope);
    }

    /** An agent created by {@code owner} (as bearer): {@code {id, token, ...}}. */
    static JsonNode agent(String bearer, String ownerId, String type, String permissions, String extra) {
        return fixture.agent(bearer, ownerId, type, permissions, extra);
    }

    static final String READ_AGENTS = AgentOAuth.READ_AGENTS;
    static final String READ_AUDIT = "[{\"resource\":\"audit\",\"actions\":[\"read\"]}]";

    static Http.Response exchange(String subject, String actor, Map<String, String> extra) {
        return fixture.exchange(subject, actor, extra);
    }

    static JsonNode claims(String jwt) throws Exception {
        return dev.warden.pipeline.contract.Json.mapper()
                .readTree(SignedJWT.parse(jwt).getPayload().toString());
    }

    /**
     * What the token's own client learns by introspecting {@code token} (the runtime's public client: a client
     * learns about its own tokens only, docs/security.md).
     */
    static Http.Response introspect(String token) {
        return driver.postForm("/oauth/introspect", Map.of("client_id", client, "token", token), null);
    }

    /**
     * True while {@code token} is usable: the REST API takes it (any answer but 401) and, for a token of the
     * runtime's client, introspection agrees.
     */
    static boolean active(String token) {
        boolean accepted = http.get("/agents", token).status() != 401;
        try {
            if (client.equals(claims(token).get("client_id").asText())) {
                Http.Response r = introspect(token);
                assertThat(r.status()).as(r.body()).isEqualTo(200);
                assertThat(r.json().get("active").asBoolean())
                        .as("introspection agrees with the API")
                        .isEqualTo(accepted);
            }
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        return accepted;
    }

    static void assertRefused(Http.Response r, int status, String error, String reason) {
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        assertThat(r.json().get("error").asText()).as(r.body()).isEqualTo(error);
        if (reason == null) {
            assertThat(r.json().has("warden_error")).as(r.body()).isFalse();
        } else {
            assertThat(r.json().get("warden_error").asText()).as(r.body()).isEqualTo(reason);
        }
        assertThat(r.json().get("error_description").asText()).isNotBlank();
    }

    @Test
    void metadataAnnouncesTheNewGrantsAndTheDeviceEndpoint() {
        JsonNode doc = http.get("/.well-known/oauth-authorization-server", null).json();
        assertThat(doc.get("device_authorization_endpoint").asText()).isEqualTo(issuer + "/auth/device/code");
        assertThat(doc.get("grant_types_supported").toString()).contains("\"client_credentials\"", EXCHANGE, DEVICE);
    }

    @Test
    void aUsersAgentExchangesTheUsersTokenForOneWithActAndTheIntersectedScope() throws Exception {
        User user = newUser();
        Instant agentEnd = Instant.now().plus(Duration.ofMinutes(2)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        JsonNode a = agent(user.session(), user.id(), "delegated", READ_AGENTS, ",\"expiresAt\":\"" + agentEnd + "\"");
        String subject = userToken(user, "agents:read audit:read");

        Http.Response r = exchange(subject, a.get("token").asText(), Map.of());
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(r.header("Cache-Control")).contains("no-store");
        JsonNode body = r.json();
        assertThat(body.get("issued_token_type").asText()).isEqualTo(ACCESS);
        assertThat(body.get("token_type").asText()).isEqualTo("Bearer");
        assertThat(body.has("refresh_token")).isFalse();
        // audit:read is the user's but not the agent's: only agents:read remains.
        assertThat(body.get("scope").asText()).isEqualTo("agents:read");
        String token = body.get("access_token").asText();
        JsonNode claims = claims(token);
        assertThat(claims.get("sub").asText()).isEqualTo(user.id());
        assertThat(claims.get("act").toString())
                .isEqualTo("{\"sub\":\"" + a.get("id").asText() + "\"}");
        assertThat(claims.get("aud").asText()).isEqualTo(issuer);
        // No row (D185): the chain is in the token, started from the user's grant.
        assertThat(claims.get("gid").asText()).startsWith("agc_");
        assertThat(claims.at("/wdn_chain/a/0/id").asText())
                .isEqualTo(a.get("id").asText());
        assertThat(claims.at("/wdn_chain/g").asText()).isNotBlank();
        assertThat(warden.execute("UPDATE oauth_agent_grants SET scope = scope WHERE subject = ?", user.id()))
                .as("no grant row for an exchanged token")
                .isZero();
        // Never past the agent's own end.
        assertThat(claims.get("exp").asLong()).isLessThanOrEqualTo(agentEnd.getEpochSecond());
        assertThat(body.get("expires_in").asLong()).isLessThanOrEqualTo(120);

        assertThat(http.get("/agents", token).status()).isEqualTo(200);
        assertThat(http.get("/audit", token).status()).isEqualTo(403);
        assertThat(active(token)).isTrue();

        // Asking for a scope the agent does not hold is refused, not silently narrowed.
        assertRefused(
                exchange(subject, a.get("token").asText(), Map.of("scope", "audit:read")), 400, "invalid_scope", null);

        // Revoking the agent ends its token at once.
        assertThat(http.delete("/agents/" + a.get("id").asText(), user.session())
                        .status())
                .isEqualTo(204);
        assertThat(active(token)).isFalse();
        assertThat(http.get("/agents", token).status()).isEqualTo(401);
        // ... and the agent can no longer exchange.
        assertRefused(exchange(subject, a.get("token").asText(), Map.of()), 400, "invalid_request", "agent_inactive");
    }

    @Test
    void aChainOfDelegationsNestsActAndEndsWithAnyLink() throws Exception {
        User user = newUser();
        JsonNode a = agent(user.session(), user.id(), "delegated", READ_AGENTS, "");
        User other = newUser();
        JsonNode b = agent(other.session(), other.id(), "delegated", "[]", "");
        Http.Response d = http.post(
                "/delegations",
                user.session(),
                "{\"fromAgent\":\"" + a.get("id").asText() + "\",\"toAgent\":\""
                        + b.get("id").asText() + "\",\"permissions\":" + READ_AGENTS + ",\"maxDepth\":3}");
        assertThat(d.status()).as(d.body()).isEqualTo(201);

        String subject = userToken(user, "agents:read");
        String viaA = exchange(subject, a.get("token").asText(), Map.of())
                .json()
                .get("access_token")
                .asText();
        Http.Response r = exchange(viaA, b.get("token").asText(), Map.of());
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        String viaB = r.json().get("access_token").asText();
        assertThat(claims(viaB).get("sub").asText()).isEqualTo(user.id());
        assertThat(claims(viaB).get("act").toString())
                .isEqualTo("{\"sub\":\"" + b.get("id").asText() + "\",\"act\":{\"sub\":\""
                        + a.get("id").asText() + "\"}}");
        assertThat(r.json().get("scope").asText()).isEqualTo("agents:read");
        assertThat(active(viaB)).isTrue();

        // B may not use the user's token directly: the user delegates to their own agents only.
        assertRefused(
                exchange(subject, b.get("token").asText(), Map.of()), 400, "invalid_request", "delegation_not_found");

        // Revoking the delegation ends B's token, and B cannot exchange again.
        assertThat(http.delete("/delegations/" + d.json().get("id").asText(), user.session())
                        .status())
                .isEqualTo(204);
        assertThat(active(viaB)).isFalse();
        assertThat(active(viaA)).isTrue();
        assertRefused(exchange(viaA, b.get("token").asText(), Map.of()), 400, "invalid_request", "delegation_revoked");
        // A token that relied on the revoked delegation says so when used as a subject token.
        JsonNode c = agent(other.session(), other.id(), "delegated", "[]", "");
        assertRefused(exchange(viaB, c.get("token").asText(), Map.of()), 400, "invalid_request", "delegation_revoked");
    }

    @Test
    void aChainDeeperThanItsMaxDepthIsRefused() {
        User user = newUser();
        JsonNode a = agent(user.session(), user.id(), "delegated", READ_AGENTS, "");
        JsonNode b = agent(user.session(), user.id(), "delegated", READ_AGENTS, "");
        JsonNode c = agent(user.session(), user.id(), "delegated", "[]", "");
        delegate(user, a, b, 1);
        delegate(user, b, c, 1);
        String subject = userToken(user, "agents:read");
        String viaA = exchange(subject, a.get("token").asText(), Map.of())
                .json()
                .get("access_token")
                .asText();
        Http.Response viaB = exchange(viaA, b.get("token").asText(), Map.of());
        assertThat(viaB.status()).as(viaB.body()).isEqualTo(200);
        // user -> A -> B -> C is two agent-to-agent hops; B -> C allows one.
        assertRefused(
                exchange(
                        viaB.json().get("access_token").asText(), c.get("token").asText(), Map.of()),
                400,
                "invalid_request",
                "chain_depth_exceeded");
    }

    static void delegate(User user, JsonNode from, JsonNode to, int maxDepth) {
        Http.Response d = http.post(
                "/delegations",
                user.session(),
                "{\"fromAgent\":\"" + from.get("id").asText()
                        + "\",\"toAgent\":\"" + to.get("id").asText() + "\",\"permissions\":" + READ_AGENTS
                        + ",\"maxDepth\":"
                        + maxDepth + "}");
        assertThat(d.status()).as(d.body()).isEqualTo(201);
    }

    @Test
    void eachTokenFailureClassHasItsOwnAnswer() {
        User user = newUser();
        JsonNode a = agent(user.session(), user.id(), "delegated", READ_AGENTS, "");
        String subject = userToken(user, "agents:read");
        String actor = a.get("token").asText();

        assertRefused(
                exchange("eyJhbGciOiJFUzI1NiJ9.e30.c2ln", actor, Map.of()),
                400,
                "invalid_request",
                "subject_token_invalid");
        assertRefused(
                exchange(subject, actor, Map.of("subject_token_type", "urn:ietf:params:oauth:token-type:jwt")),
                400,
                "invalid_request",
                "subject_token_invalid");
        assertRefused(exchange(subject, null, Map.of()), 400, "invalid_request", "actor_token_invalid");
        assertRefused(exchange(subject, user.session(), Map.of()), 400, "invalid_request", "actor_token_invalid");
        assertRefused(
                exchange(subject, "wdn_agt_" + "x".repeat(43), Map.of()), 400, "invalid_request", "agent_not_found");
        assertThat(http.post("/agents/" + a.get("id").asText() + "/suspend", user.session())
                        .status())
                .isEqualTo(200);
        assertRefused(exchange(subject, actor, Map.of()), 400, "invalid_request", "agent_inactive");
        assertThat(http.post("/agents/" + a.get("id").asText() + "/resume", user.session())
                        .status())
                .isEqualTo(200);
        assertThat(exchange(subject, actor, Map.of()).status()).isEqualTo(200);

        // Another user's agent: no delegation links it to this user.
        User stranger = newUser();
        JsonNode theirs = agent(stranger.session(), stranger.id(), "delegated", READ_AGENTS, "");
        assertRefused(
                exchange(subject, theirs.get("token").asText(), Map.of()),
                400,
                "invalid_request",
                "delegation_not_found");
        // Unknown resource, and a requested token type other than an access token.
        assertRefused(
                exchange(subject, actor, Map.of("resource", "https://elsewhere.example/")),
                400,
                "invalid_target",
                null);
        assertRefused(
                exchange(
                        subject,
                        actor,
                        Map.of("requested_token_type", "urn:ietf:params:oauth:token-type:refresh_token")),
                400,
                "invalid_request",
                null);
        // A client that did not register the grant type.
        String plain = driver.registerPublicClient();
        Map<String, String> form = new LinkedHashMap<>(Map.of(
                "grant_type",
                EXCHANGE,
                "client_id",
                plain,
                "subject_token",
                subject,
                "subject_token_type",
                ACCESS,
                "actor_token",
                actor,
                "actor_token_type",
                ACCESS));
        assertRefused(driver.token(form), 400, "unauthorized_client", null);
    }

    @Test
    void rotatingTheActorsTokenEndsWhatItObtained() {
        User user = newUser();
        JsonNode a = agent(user.session(), user.id(), "delegated", READ_AGENTS, "");
        String token = exchange(userToken(user, "agents:read"), a.get("token").asText(), Map.of())
                .json()
                .get("access_token")
                .asText();
        assertThat(active(token)).isTrue();
        assertThat(http.post("/agents/" + a.get("id").asText() + "/rotate", user.session())
                        .status())
                .isEqualTo(200);
        assertThat(active(token)).isFalse();
    }

    // ------------------------------------------------------------------ client credentials

    static Http.Response clientCredentials(String id, String secret, Map<String, String> extra) {
        return driver.clientCredentials(id, secret, extra);
    }

    /** A new service agent of {@code owner} that may read agents, bound to an OAuth client by its owner. */
    static JsonNode boundServiceAgent(User owner) {
        JsonNode svc = agent(owner.session(), owner.id(), "service", READ_AGENTS, "");
        assertThat(http.post("/agents/" + svc.get("id").asText() + "/oauth-client", owner.session())
                        .status())
                .isEqualTo(201);
        return svc;
    }

    @Test
    void aBoundServiceAgentGetsTokensScopedByItsPermissions() throws Exception {
        User owner = newUser();
        JsonNode svc = agent(owner.session(), owner.id(), "service", READ_AGENTS, "");
        String id = svc.get("id").asText();
        // Not bound yet: no such client.
        assertRefused(clientCredentials(id, svc.get("token").asText(), Map.of()), 401, "invalid_client", null);

        Http.Response bound = http.post("/agents/" + id + "/oauth-client", owner.session());
        assertThat(bound.status()).as(bound.body()).isEqualTo(201);
        assertThat(bound.json().get("client_id").asText()).isEqualTo(id);
        assertThat(bound.json().get("token_endpoint").asText()).isEqualTo(issuer + "/oauth/token");
        assertThat(http.post("/agents/" + id + "/oauth-client", owner.session()).status())
                .isEqualTo(200);
        assertThat(http.get("/agents/" + id + "/oauth-client", owner.session()).status())
                .isEqualTo(200);
        // Only the owner (or the administrator) binds; only service agents.
        assertThat(http.post("/agents/" + id + "/oauth-client", newUser().session())
                        .status())
                .isEqualTo(404);
        JsonNode notService = agent(owner.session(), owner.id(), "autonomous", READ_AGENTS, "");
        Http.Response refused =
                http.post("/agents/" + notService.get("id").asText() + "/oauth-client", owner.session());
        assertThat(refused.status()).isEqualTo(409);
        assertThat(refused.json().get("code").asText()).isEqualTo("agent_not_service");

        Http.Response r = clientCredentials(id, svc.get("token").asText(), Map.of());
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(r.json().get("scope").asText()).isEqualTo("agents:read");
        assertThat(r.json().has("refresh_token")).isFalse();
        String token = r.json().get("access_token").asText();
        JsonNode claims = claims(token);
        assertThat(claims.get("sub").asText()).isEqualTo(id);
        assertThat(claims.get("sub_kind").asText()).isEqualTo("agent");
        assertThat(claims.get("client_id").asText()).isEqualTo(id);
        // As the agent on the REST API: it sees itself only; audit:read is not in its token.
        Http.Response listed = http.get("/agents", token);
        assertThat(listed.status()).isEqualTo(200);
        assertThat(listed.json().size()).isEqualTo(1);
        assertThat(http.get("/audit", token).status()).isEqualTo(403);
        assertRefused(
                clientCredentials(id, svc.get("token").asText(), Map.of("scope", "audit:read")),
                400,
                "invalid_scope",
                null);

        // Rotation: the old secret stops working and so do the tokens it obtained.
        Http.Response rotated = http.post("/agents/" + id + "/rotate", owner.session());
        assertThat(rotated.status()).isEqualTo(200);
        assertRefused(clientCredentials(id, svc.get("token").asText(), Map.of()), 401, "invalid_client", null);
        assertThat(active(token)).isFalse();
        String newSecret = rotated.json().get("token").asText();
        String second = clientCredentials(id, newSecret, Map.of())
                .json()
                .get("access_token")
                .asText();
        assertThat(active(second)).isTrue();

        // Revocation: the client is gone at once, and so are its tokens.
        assertThat(http.delete("/agents/" + id, owner.session()).status()).isEqualTo(204);
        assertRefused(clientCredentials(id, newSecret, Map.of()), 401, "invalid_client", null);
        assertThat(active(second)).isFalse();
    }

    @Test
    void unbindingEndsTheClientAndRegisteredClientsCannotUseClientCredentials() {
        User owner = newUser();
        JsonNode svc = boundServiceAgent(owner);
        String id = svc.get("id").asText();
        assertThat(clientCredentials(id, svc.get("token").asText(), Map.of()).status())
                .isEqualTo(200);
        assertThat(http.delete("/agents/" + id + "/oauth-client", owner.session())
                        .status())
                .isEqualTo(204);
        assertRefused(clientCredentials(id, svc.get("token").asText(), Map.of()), 401, "invalid_client", null);

        Http.Response reg = http.post("/mcp/register", null, "{\"redirect_uris\":[\"" + OAuthDriver.REDIRECT + "\"]}");
        assertRefused(
                clientCredentials(
                        reg.json().get("client_id").asText(),
                        reg.json().get("client_secret").asText(),
                        Map.of()),
                400,
                "unauthorized_client",
                null);
    }

    /**
     * A client-credentials token has no row of its own (D185): what it depends on is signed into it and checked on
     * each use against what every instance caches. Each change that must end it does, and none brings it back.
     */
    @Test
    void aClientCredentialsTokenStoresNoRowAndEndsWithEveryChangeItDependsOn() throws Exception {
        User owner = newUser();
        JsonNode svc = boundServiceAgent(owner);
        String id = svc.get("id").asText();
        String secret = svc.get("token").asText();

        String first = issued(id, secret);
        assertThat(warden.execute("UPDATE oauth_agent_grants SET scope = scope WHERE client_id = ?", id))
                .as("no grant row for a client-credentials token")
                .isZero();
        assertThat(claims(first).get("gid").asText()).startsWith("agc_");
        assertThat(claims(first).get("wdn_chain").get("d")).isEmpty();

        // RFC 7009: the revoked token ends, another of the same agent does not.
        String second = issued(id, secret);
        assertThat(basicRevoke(id, secret, first).status()).isEqualTo(200);
        assertThat(active(first)).isFalse();
        assertThat(active(second)).isTrue();

        // Suspending ends it, and resuming does not bring it back (the agent's version moved).
        assertThat(http.post("/agents/" + id + "/suspend", owner.session()).status())
                .isEqualTo(200);
        assertThat(active(second)).isFalse();
        assertThat(http.post("/agents/" + id + "/resume", owner.session()).status())
                .isEqualTo(200);
        assertThat(active(second)).as("resumed, the old token stays ended").isFalse();

        // Unbinding ends it; binding again does not bring it back; a new token works.
        String third = issued(id, secret);
        assertThat(http.delete("/agents/" + id + "/oauth-client", owner.session())
                        .status())
                .isEqualTo(204);
        assertThat(active(third)).isFalse();
        assertThat(http.post("/agents/" + id + "/oauth-client", owner.session()).status())
                .isEqualTo(201);
        assertThat(active(third)).as("bound again, the old token stays ended").isFalse();
        assertThat(active(issued(id, secret))).isTrue();

        // A token whose scope came through a delegation ends when the delegation is revoked.
        JsonNode source = agent(owner.session(), owner.id(), "autonomous", READ_AGENTS, "");
        JsonNode target = agent(owner.session(), owner.id(), "service", "[]", "");
        String targetId = target.get("id").asText();
        Http.Response d = http.post(
                "/delegations",
                owner.session(),
                "{\"fromAgent\":\"" + source.get("id").asText() + "\",\"toAgent\":\"" + targetId + "\",\"permissions\":"
                        + READ_AGENTS + "}");
        assertThat(d.status()).as(d.body()).isEqualTo(201);
        assertThat(http.post("/agents/" + targetId + "/oauth-client", owner.session())
                        .status())
                .isEqualTo(201);
        String delegated = issued(targetId, target.get("token").asText());
        assertThat(claims(delegated).get("wdn_chain").get("d").get(0).asText())
                .isEqualTo(d.json().get("id").asText());
        assertThat(active(delegated)).isTrue();
        assertThat(http.delete("/delegations/" + d.json().get("id").asText(), owner.session())
                        .status())
                .isEqualTo(204);
        assertThat(active(delegated)).isFalse();
    }

    static String issued(String id, String secret) {
        Http.Response r = clientCredentials(id, secret, Map.of());
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json().get("access_token").asText();
    }

    static Http.Response basicRevoke(String id, String secret, String token) {
        String basic = java.util.Base64.getEncoder()
                .encodeToString((id + ":" + secret).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return http.send(http.builder("/oauth/revoke", null)
                .header("Authorization", "Basic " + basic)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(
                        "token=" + java.net.URLEncoder.encode(token, java.nio.charset.StandardCharsets.UTF_8))));
    }

    // ------------------------------------------------------------------ device grant

    static Http.Response deviceAuthorization(String clientId, String scope) {
        return driver.postForm("/auth/device/code", Map.of("client_id", clientId, "scope", scope), null);
    }

    static Http.Response poll(String deviceCode) {
        return driver.token(Map.of("grant_type", DEVICE, "client_id", client, "device_code", deviceCode));
    }

    /** Enters {@code userCode} on the verification page as {@code user} and answers {@code decision}. */
    static Http.Response decide(User user, String userCode, String decision) {
        Http.Response page = driver.getWithSession("/auth/device?user_code=" + userCode, user.session());
        assertThat(page.status()).as(page.body()).isEqualTo(200);
        assertThat(page.body()).contains("value=\"" + userCode + "\"");
        String csrf = page.header("Set-Cookie").orElseThrow().replaceAll(";.*", "");
        String cookie = "warden_session=" + user.session() + "; " + csrf;
        Map<String, String> form = OAuthDriver.hiddenFields(page.body());
        form.put("user_code", userCode);
        Http.Response confirm = driver.postForm("/auth/device/verify", form, cookie);
        assertThat(confirm.status()).as(confirm.body()).isEqualTo(200);
        assertThat(confirm.body()).contains("Agent runtime");
        Map<String, String> answer = OAuthDriver.hiddenFields(confirm.body());
        answer.put("decision", decision);
        return driver.postForm("/auth/device/verify", answer, cookie);
    }

    @Test
    void aDeviceGetsTokensOnceItsUserApproves() throws Exception {
        User user = newUser();
        Http.Response start = deviceAuthorization(client, "agents:read");
        assertThat(start.status()).as(start.body()).isEqualTo(200);
        JsonNode device = start.json();
        assertThat(device.get("verification_uri").asText()).isEqualTo(issuer + "/auth/device");
        String userCode = device.get("user_code").asText();
        assertThat(userCode).matches("[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}");
        assertThat(device.get("verification_uri_complete").asText()).endsWith("?user_code=" + userCode);
        assertThat(device.get("interval").asInt()).isEqualTo(1);
        String deviceCode = device.get("device_code").asText();

        assertRefused(poll(deviceCode), 400, "authorization_pending", null);
        assertRefused(poll(deviceCode), 400, "slow_down", null);
        // Not signed in: the page sends the browser to the login page and back.
        Http.Response anonymous = http.get("/auth/device?user_code=" + userCode, null);
        assertThat(anonymous.status()).isEqualTo(302);
        assertThat(anonymous.header("Location").orElseThrow()).startsWith("/oauth/login?return_to=%2Fauth%2Fdevice");

        Http.Response done = decide(user, userCode, "allow");
        assertThat(done.status()).as(done.body()).isEqualTo(200);
        assertThat(done.body()).contains("Device connected");
        warden.clock().advance(Duration.ofMillis(6_100)); // the interval grew by 5 s with slow_down
        Http.Response tokens = poll(deviceCode);
        assertThat(tokens.status()).as(tokens.body()).isEqualTo(200);
        assertThat(tokens.json().get("scope").asText()).isEqualTo("agents:read");
        assertThat(tokens.json().get("refresh_token").asText()).startsWith("wdn_rft_");
        String access = tokens.json().get("access_token").asText();
        assertThat(claims(access).get("sub").asText()).isEqualTo(user.id());
        assertThat(http.get("/agents", access).status()).isEqualTo(200);
        // Spent.
        warden.clock().advance(Duration.ofMillis(6_100));
        assertRefused(poll(deviceCode), 400, "invalid_grant", null);
    }

    @Test
    void aDeniedOrUnknownOrExpiredDeviceCodeSaysSo() {
        User user = newUser();
        JsonNode device = deviceAuthorization(client, "agents:read").json();
        Http.Response denied = decide(user, device.get("user_code").asText(), "deny");
        assertThat(denied.body()).contains("Device refused");
        assertRefused(poll(device.get("device_code").asText()), 400, "access_denied", null);
        assertRefused(poll("wdn_dvc_unknown"), 400, "invalid_grant", null);

        // A wrong code on the page, without saying why.
        Http.Response page = driver.getWithSession("/auth/device", user.session());
        String csrf = page.header("Set-Cookie").orElseThrow().replaceAll(";.*", "");
        Map<String, String> form = OAuthDriver.hiddenFields(page.body());
        form.put("user_code", "BBBB-BBBB");
        Http.Response wrong =
                driver.postForm("/auth/device/verify", form, "warden_session=" + user.session() + "; " + csrf);
        assertThat(wrong.status()).isEqualTo(400);
        assertThat(wrong.body()).contains("not valid");
        // Without the CSRF cookie nothing is decided.
        assertThat(driver.postForm("/auth/device/verify", form, "warden_session=" + user.session())
                        .status())
                .isEqualTo(403);

        JsonNode late = deviceAuthorization(client, "agents:read").json();
        warden.clock().advance(Duration.ofMinutes(11));
        try {
            assertRefused(poll(late.get("device_code").asText()), 400, "expired_token", null);
        } finally {
            warden.clock().advance(Duration.ofMinutes(-11));
        }
        // A client that did not register the device grant.
        assertRefused(
                deviceAuthorization(driver.registerPublicClient(), "agents:read"), 400, "unauthorized_client", null);
    }

    @Test
    void devicesAndAgentsSigningInAreEventsButWaitingIsNot() throws Exception {
        Http.Response reg = http.post(
                "/mcp/register",
                null,
                "{\"client_name\":\"Events runtime\",\"grant_types\":[\"" + EXCHANGE + "\",\"" + DEVICE
                        + "\"],\"token_endpoint_auth_method\":\"none\"}");
        String own = reg.json().get("client_id").asText();
        User user = newUser();
        JsonNode device = deviceAuthorization(own, "agents:read").json();
        Map<String, String> poll = Map.of(
                "grant_type",
                DEVICE,
                "client_id",
                own,
                "device_code",
                device.get("device_code").asText());
        assertRefused(driver.token(poll), 400, "authorization_pending", null);
        assertRefused(driver.token(poll), 400, "slow_down", null);
        String code = device.get("user_code").asText();
        Http.Response page = driver.getWithSession("/auth/device?user_code=" + code, user.session());
        String cookie = "warden_session=" + user.session() + "; "
                + page.header("Set-Cookie").orElseThrow().replaceAll(";.*", "");
        Map<String, String> form = OAuthDriver.hiddenFields(page.body());
        form.put("user_code", code);
        form.put("decision", "allow");
        assertThat(driver.postForm("/auth/device/verify", form, cookie).body()).contains("Device connected");
        warden.clock().advance(Duration.ofMillis(6_100));
        Http.Response tokens = driver.token(poll);
        assertThat(tokens.status()).as(tokens.body()).isEqualTo(200);
        JsonNode a = agent(user.session(), user.id(), "delegated", READ_AGENTS, "");
        Map<String, String> exchange = new LinkedHashMap<>(Map.of(
                "grant_type",
                EXCHANGE,
                "client_id",
                own,
                "subject_token",
                tokens.json().get("access_token").asText(),
                "subject_token_type",
                ACCESS,
                "actor_token",
                a.get("token").asText(),
                "actor_token_type",
                ACCESS));
        assertThat(driver.token(exchange).status()).isEqualTo(200);
        exchange.put("scope", "audit:read");
        assertRefused(driver.token(exchange), 400, "invalid_scope", null);

        List<dev.warden.api.users.EventsTopic.Event> events = dev.warden.api.users.EventsTopic.await(
                warden.infra().kafkaBootstrap(),
                warden.topics().events(),
                e -> e.type().startsWith("auth.") && e.text().contains(own),
                3);
        assertThat(events.stream().map(dev.warden.api.users.EventsTopic.Event::type))
                .containsExactly("auth.signin", "auth.signin", "auth.failed");
        assertThat(events.get(0).json().at("/data/method").asText()).isEqualTo("oauth_device_code");
        assertThat(events.get(0).json().at("/userId").asText()).isEqualTo(user.id());
        assertThat(events.get(1).json().at("/data/method").asText()).isEqualTo("oauth_token_exchange");
        assertThat(events.get(1).json().at("/agentId").asText())
                .isEqualTo(a.get("id").asText());
        assertThat(events.get(1).json().at("/data/actors/0").asText())
                .isEqualTo(a.get("id").asText());
        assertThat(events.get(2).json().at("/data/reason").asText()).isEqualTo("invalid_scope");
        for (dev.warden.api.users.EventsTopic.Event e : events) {
            assertThat(e.text()).doesNotContain("wdn_").doesNotContain("eyJ");
        }
    }

    @Test
    void everyEventOfATokenRequestIsOnTheTopicBeforeItsAnswer() {
        User user = newUser();
        JsonNode svc = boundServiceAgent(user);
        String id = svc.get("id").asText();
        String bootstrap = warden.infra().kafkaBootstrap();
        String topic = warden.topics().events();
        OAuthDriver.Pkce pkce = OAuthDriver.Pkce.fresh();
        String code = OAuthDriver.query(driver.authorize(user.session(), OAuthDriver.request(client, pkce, "st")))
                .get("code");
        long from = dev.warden.api.users.EventsTopic.end(bootstrap, topic);

        // Back to back: a grant started (its auth.signin written in the grant's transaction, through the outbox), a
        // token issued to an agent (its auth.signin published at once, D198), a refusal (auth.failed).
        assertThat(driver.exchange(client, code, pkce).status()).isEqualTo(200);
        assertThat(clientCredentials(id, svc.get("token").asText(), Map.of()).status())
                .isEqualTo(200);
        assertRefused(driver.exchange(client, code, pkce), 400, "invalid_grant", null);
        List<dev.warden.api.users.EventsTopic.Event> events =
                dev.warden.api.users.EventsTopic.since(bootstrap, topic, from).stream()
                        .filter(e -> e.type().startsWith("auth."))
                        .toList();

        // All three were on the topic when the last answer came, in the order they happened.
        assertThat(events.stream()
                        .map(e -> e.type() + " " + e.json().at("/data/method").asText()))
                .containsExactly(
                        "auth.signin oauth_authorization_code",
                        "auth.signin oauth_client_credentials",
                        "auth.failed oauth_authorization_code");
        assertThat(events.get(0).json().at("/userId").asText()).isEqualTo(user.id());
        assertThat(events.get(1).json().at("/agentId").asText()).isEqualTo(id);
        assertThat(events.get(2).json().at("/data/client/id").asText()).isEqualTo(client);
    }

    @Test
    void tokensForAgentsAreNotRefreshableAndIntrospectWithTheirActor() {
        User user = newUser();
        JsonNode a = agent(user.session(), user.id(), "delegated", READ_AGENTS, "");
        String token = exchange(userToken(user, "agents:read"), a.get("token").asText(), Map.of())
                .json()
                .get("access_token")
                .asText();
        Http.Response r = introspect(token);
        assertThat(r.json().get("active").asBoolean()).isTrue();
        assertThat(r.json().get("sub").asText()).isEqualTo(user.id());
        assertThat(r.json().get("act").get("sub").asText())
                .isEqualTo(a.get("id").asText());
        assertThat(List.of(r.json().get("scope").asText().split(" "))).containsExactly("agents:read");
    }

    @Test
    void aGrantAndItsRevocationAreInThePersonsAuditLog() throws Exception {
        User user = newUser();
        OAuthDriver.Pkce pkce = OAuthDriver.Pkce.fresh();
        Map<String, String> request = OAuthDriver.request(client, pkce, "st");
        request.put("scope", "agents:read");
        Http.Response pair = driver.exchange(
                client,
                OAuthDriver.query(driver.authorize(user.session(), request)).get("code"),
                pkce);
        assertThat(pair.status()).as(pair.body()).isEqualTo(200);
        JsonNode created = awaitAudit(user.id(), "admin.account.oauth-grant.created");
        assertThat(created.at("/parameters/grantType").asText()).isEqualTo("authorization_code");
        assertThat(created.at("/parameters/target/id").asText()).isEqualTo(client);
        assertThat(created.at("/parameters/scope").asText()).isEqualTo("agents:read");
        assertThat(created.toString())
                .doesNotContain(pair.json().get("access_token").asText());
        Http.Response revoked = driver.postForm(
                "/oauth/revoke",
                Map.of(
                        "client_id",
                        client,
                        "token",
                        pair.json().get("refresh_token").asText()),
                null);
        assertThat(revoked.status()).isEqualTo(200);
        JsonNode ended = awaitAudit(user.id(), "admin.account.oauth-grant.revoked");
        assertThat(ended.at("/parameters/grant").asText())
                .isEqualTo(created.at("/parameters/grant").asText());
    }

    /** The person's first audit entry of {@code action}, once it is there. */
    static JsonNode awaitAudit(String userId, String action) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            for (JsonNode e : http.get("/audit?limit=1000&userId=" + userId, warden.adminToken())
                    .json()) {
                if (e.path("action").asText().equals(action)) {
                    return e;
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError(action + " never reached the audit log");
    }
}
