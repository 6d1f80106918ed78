package dev.warden.api.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.launcher.WardenPlatform;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * OpenID CIBA in poll mode over real HTTP (docs/approvals.md): an agent bound as an OAuth client asks its owner
 * through {@code POST /oauth/bc-authorize}; the request is an approval request the owner decides like any other; the
 * client polls the token endpoint ({@code authorization_pending}, {@code slow_down}, then tokens once, or
 * {@code access_denied}, {@code expired_token}); revoking the agent ends the request and the tokens; a second instance
 * answers the poll.
 */
class CibaIT {
    static final String CIBA = "urn:openid:params:grant-type:ciba";

    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b -> b.rateLimit(RateLimitConfig.builder()
            .endpoint(AuthEndpoint.OAUTH_TOKEN, 10_000, 60)
            .endpoint(AuthEndpoint.SIGN_UP, 1000, 60)
            .endpoint(AuthEndpoint.BACKCHANNEL_AUTHENTICATION, 1000, 60)
            .build()));

    static Http http;
    static Http other;
    static WardenPlatform second;
    static String issuer;
    static int users;

    @BeforeAll
    static void setUp() {
        http = warden.http();
        issuer = http.baseUri().toString().replaceAll("/$", "");
        second = warden.startAnother("b", b -> b.roles("api"));
        other = new Http(second.baseUri());
    }

    @AfterAll
    static void tearDown() {
        if (second != null) {
            second.close();
        }
    }

    record Owner(String id, String session) {}

    record Client(String id, String secret, Owner owner) {}

    static synchronized Owner owner() {
        Http.Response r = http.post(
                "/auth/sign-up",
                null,
                "{\"username\":\"ciba_" + (++users) + "\",\"password\":\"a long enough password\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return new Owner(
                r.json().get("user").get("id").asText(), r.json().get("token").asText());
    }

    /** A service agent of a new owner, bound as an OAuth client. */
    static Client client() {
        Owner owner = owner();
        Http.Response agent = http.post("/agents", owner.session(), """
                {"ownerId":"%s","name":"report runtime","type":"service",
                 "permissions":[{"resource":"agents","actions":["read"]}]}""".formatted(owner.id()));
        assertThat(agent.status()).as(agent.body()).isEqualTo(201);
        String id = agent.json().get("id").asText();
        assertThat(http.post("/agents/" + id + "/oauth-client", owner.session()).status())
                .isEqualTo(201);
        return new Client(id, agent.json().get("token").asText(), owner);
    }

    static Http.Response form(Http on, String path, Client client, Map<String, String> form) {
        String basic = Base64.getEncoder()
                .encodeToString((client.id() + ":" + client.secret()).getBytes(StandardCharsets.UTF_8));
        return on.send(on.builder(path, null)
                .header("Authorization", "Basic " + basic)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(OAuthDriver.encode(form))));
    }

    static Http.Response ask(Client client, Map<String, String> extra) {
        Map<String, String> f = new LinkedHashMap<>(Map.of(
                "scope", "openid agents:read", "login_hint", client.owner().id(), "binding_message", "Q3 report"));
        f.putAll(extra);
        f.values().removeIf(v -> v == null);
        return form(http, "/oauth/bc-authorize", client, f);
    }

    static String authRequest(Client client) {
        Http.Response r = ask(client, Map.of());
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json().get("auth_req_id").asText();
    }

    static Http.Response poll(Http on, Client client, String authRequestId) {
        return form(on, "/oauth/token", client, Map.of("grant_type", CIBA, "auth_req_id", authRequestId));
    }

    static void refused(Http.Response r, int status, String error) {
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        assertThat(r.json().get("error").asText()).as(r.body()).isEqualTo(error);
    }

    /** The owner's pending approval request for {@code client}, as the owner lists them. */
    static JsonNode pendingRequest(Client client) {
        Http.Response list =
                http.get("/approvals?status=pending", client.owner().session());
        assertThat(list.status()).as(list.body()).isEqualTo(200);
        for (JsonNode a : list.json()) {
            if (a.get("agentId").asText().equals(client.id())) {
                return a;
            }
        }
        throw new AssertionError("no pending request of " + client.id() + " in " + list.body());
    }

    @Test
    void theMetadataAnnouncesTheBackchannelInPollMode() {
        JsonNode doc = http.get("/.well-known/oauth-authorization-server", null).json();
        assertThat(doc.get("backchannel_authentication_endpoint").asText()).isEqualTo(issuer + "/oauth/bc-authorize");
        assertThat(doc.get("backchannel_token_delivery_modes_supported").toString())
                .isEqualTo("[\"poll\"]");
        assertThat(doc.get("grant_types_supported").toString()).contains(CIBA);
    }

    @Test
    void theOwnerApprovesAndThePollGetsTokensOnceOnAnyInstance() {
        Client client = client();
        Http.Response asked = ask(client, Map.of());
        assertThat(asked.status()).as(asked.body()).isEqualTo(200);
        assertThat(asked.header("Cache-Control")).hasValue("no-store");
        assertThat(asked.json().get("expires_in").asInt()).isEqualTo(600);
        String id = asked.json().get("auth_req_id").asText();
        assertThat(id).startsWith("wdn_bcr_");

        refused(poll(other, client, id), 400, "authorization_pending");
        refused(poll(http, client, id), 400, "slow_down");
        JsonNode request = pendingRequest(client);
        assertThat(request.get("action").asText()).isEqualTo("oauth.backchannel");
        assertThat(request.get("arguments").get("bindingMessage").asText()).isEqualTo("Q3 report");
        assertThat(request.get("arguments").get("scope").asText()).isEqualTo("agents:read");
        // The agent itself cannot approve its own request
        assertThat(http.post("/approvals/" + request.get("id").asText() + "/approve", client.secret(), "{}")
                        .status())
                .isIn(403, 404);
        Http.Response approved = http.post(
                "/approvals/" + request.get("id").asText() + "/approve",
                client.owner().session(),
                "{\"note\":\"ok\"}");
        assertThat(approved.status()).as(approved.body()).isEqualTo(200);

        warden.clock().advance(Duration.ofSeconds(10));
        Http.Response tokens = poll(http, client, id);
        assertThat(tokens.status()).as(tokens.body()).isEqualTo(200);
        assertThat(tokens.json().get("scope").asText()).isEqualTo("agents:read");
        assertThat(tokens.json().has("refresh_token")).isTrue();
        assertThat(tokens.json().has("id_token")).isFalse();
        String access = tokens.json().get("access_token").asText();
        // (on the instance asked: without a configured issuer, each test instance is its own issuer and resource)
        Http.Response agents = http.get("/agents", access);
        assertThat(agents.status()).as(agents.body()).isEqualTo(200);
        assertThat(agents.body()).contains(client.id());
        // Once: the approval is used, the auth_req_id spent
        warden.clock().advance(Duration.ofSeconds(10));
        refused(poll(http, client, id), 400, "invalid_grant");
        assertThat(http.get(
                                "/approvals/" + request.get("id").asText(),
                                client.owner().session())
                        .json()
                        .get("status")
                        .asText())
                .isEqualTo("used");
    }

    @Test
    void aDenialIsAccessDeniedAndAnExpiredRequestExpiredToken() {
        Client client = client();
        String denied = authRequest(client);
        JsonNode request = pendingRequest(client);
        assertThat(http.post(
                                "/approvals/" + request.get("id").asText() + "/deny",
                                client.owner().session(),
                                "{}")
                        .status())
                .isEqualTo(200);
        refused(poll(http, client, denied), 400, "access_denied");

        Http.Response shortLived = ask(client, Map.of("requested_expiry", "30"));
        assertThat(shortLived.json().get("expires_in").asInt()).isEqualTo(30);
        warden.clock().advance(Duration.ofSeconds(31));
        refused(poll(http, client, shortLived.json().get("auth_req_id").asText()), 400, "expired_token");
        // Another client cannot redeem someone else's request
        Client stranger = client();
        refused(poll(http, stranger, denied), 400, "invalid_grant");
    }

    @Test
    void revokingTheAgentEndsItsRequestsAndTheTokensItWasGranted() {
        Client client = client();
        String first = authRequest(client);
        http.post(
                "/approvals/" + pendingRequest(client).get("id").asText() + "/approve",
                client.owner().session(),
                "{}");
        Http.Response tokens = poll(http, client, first);
        assertThat(tokens.status()).as(tokens.body()).isEqualTo(200);
        String access = tokens.json().get("access_token").asText();
        assertThat(http.get("/agents", access).status()).isEqualTo(200);
        authRequest(client);
        String pending = pendingRequest(client).get("id").asText();

        assertThat(http.delete("/agents/" + client.id(), client.owner().session())
                        .status())
                .isEqualTo(204);
        assertThat(http.get("/approvals/" + pending, client.owner().session())
                        .json()
                        .get("status")
                        .asText())
                .isEqualTo("cancelled");
        assertThat(http.get("/agents", access).status()).isEqualTo(401);
        Http.Response refresh = form(
                http,
                "/oauth/token",
                client,
                Map.of(
                        "grant_type",
                        "refresh_token",
                        "refresh_token",
                        tokens.json().get("refresh_token").asText()));
        assertThat(refresh.status()).isEqualTo(401);
    }

    @Test
    void onlyAnAgentsClientAsksAndOnlyItsOwner() {
        Client client = client();
        refused(ask(client, Map.of("login_hint", owner().id())), 400, "unknown_user_id");
        refused(ask(client, Map.of("login_hint", "usr_doesnotexist")), 400, "unknown_user_id");
        Map<String, String> noHint = new LinkedHashMap<>(Map.of("scope", "agents:read"));
        refused(form(http, "/oauth/bc-authorize", client, noHint), 400, "invalid_request");
        refused(ask(client, Map.of("login_hint_token", "x")), 400, "invalid_request");
        refused(ask(client, Map.of("binding_message", "line\nbreak")), 400, "invalid_binding_message");
        refused(ask(client, Map.of("requested_expiry", "0")), 400, "invalid_request");
        refused(ask(client, Map.of("requested_expiry", "86400")), 400, "invalid_request");
        refused(ask(client, Map.of("scope", "openid")), 400, "invalid_scope");
        refused(ask(client, Map.of("scope", "agents:read nonsense:scope")), 400, "invalid_scope");
        refused(
                form(
                        http,
                        "/oauth/bc-authorize",
                        new Client(client.id(), "wrong", client.owner()),
                        Map.of(
                                "scope",
                                "agents:read",
                                "login_hint",
                                client.owner().id())),
                401,
                "invalid_client");
        // An agent whose owner is no person (the administrator made it for an id) has nobody to ask
        Http.Response made = http.post("/agents", warden.adminToken(), """
                {"ownerId":"not-a-person","name":"x","type":"service","permissions":[{"resource":"agents","actions":["read"]}]}""");
        String id = made.json().get("id").asText();
        assertThat(http.post("/agents/" + id + "/oauth-client", warden.adminToken())
                        .status())
                .isEqualTo(201);
        refused(
                form(
                        http,
                        "/oauth/bc-authorize",
                        new Client(id, made.json().get("token").asText(), null),
                        Map.of("scope", "agents:read", "login_hint", "not-a-person")),
                400,
                "unknown_user_id");
    }
}
