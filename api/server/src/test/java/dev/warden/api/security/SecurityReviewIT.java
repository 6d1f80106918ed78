package dev.warden.api.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jwt.SignedJWT;
import dev.warden.api.oauth.AgentOAuth;
import dev.warden.api.oauth.AgentOAuth.User;
import dev.warden.api.oauth.OAuthConfig;
import dev.warden.api.oauth.OAuthDriver;
import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.api.users.UsersConfig;
import dev.warden.api.webhooks.WebhooksConfig;
import dev.warden.pipeline.contract.Json;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import dev.warden.testing.TlsDocumentServer;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The findings of the outside security review (issue 35), each driven as the attacker drove it, over real HTTP
 * against a running platform: one test per finding, named by its number. Each failed on the code before its fix.
 * The rules behind them are in docs/security.md.
 */
class SecurityReviewIT {
    static final String REGISTRATION_TOKEN = "security-review-initial-access-token";
    static final String READ_AGENTS = AgentOAuth.READ_AGENTS;

    /** Stands in for the web servers of client metadata documents (finding 3); started before the platform. */
    static final TlsDocumentServer documents = TlsDocumentServer.start();

    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(
            b -> b.users(UsersConfig.builder().argon2(1024, 1, 1).build())
                    .webhooks(WebhooksConfig.builder().allowPrivateTargets(true).build())
                    .rateLimit(RateLimitConfig.builder()
                            .endpoint(AuthEndpoint.SIGN_UP, 10_000, 60)
                            .endpoint(AuthEndpoint.OAUTH_TOKEN, 10_000, 60)
                            .endpoint(AuthEndpoint.REGISTRATION, 10_000, 60)
                            .endpoint(AuthEndpoint.OAUTH_AUTHORIZE, 10_000, 60)
                            .endpoint(AuthEndpoint.OAUTH_INTROSPECT, 10_000, 60)
                            .build())
                    .oauth(OAuthConfig.builder()
                            .registrationTokens(List.of(REGISTRATION_TOKEN))
                            .clientMetadataPorts(List.of(documents.port()))
                            .outboundTls(documents.clientContext())
                            .build()));

    static Http http;
    static OAuthDriver driver;
    static String issuer;
    static String app;
    static AgentOAuth agents;

    @BeforeAll
    static void setUp() {
        http = warden.http();
        driver = new OAuthDriver(http);
        issuer = http.baseUri().toString().replaceAll("/$", "");
        agents = AgentOAuth.withRuntimeClient(http, "review_user_");
        app = agents.client();
    }

    @AfterAll
    static void tearDown() {
        documents.close();
    }

    // ------------------------------------------------------------------ helpers

    static User newUser() {
        return agents.newUser();
    }

    static JsonNode agent(User owner, String permissions) {
        return agents.agent(owner.session(), owner.id(), "delegated", permissions, "");
    }

    static void delegate(User by, JsonNode from, JsonNode to, int maxDepth) {
        Http.Response d = http.post(
                "/delegations",
                by.session(),
                "{\"fromAgent\":\"" + from.get("id").asText()
                        + "\",\"toAgent\":\"" + to.get("id").asText() + "\",\"permissions\":" + READ_AGENTS
                        + ",\"maxDepth\":"
                        + maxDepth + "}");
        assertThat(d.status()).as(d.body()).isEqualTo(201);
    }

    /** The user's access token (scope agents:read) through the code flow of the runtime's client. */
    static String userToken(User user) {
        return agents.userToken(user, "agents:read");
    }

    static Http.Response exchange(String subject, JsonNode actor) {
        return agents.exchange(subject, actor.get("token").asText(), Map.of());
    }

    static String accessToken(Http.Response r) {
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json().get("access_token").asText();
    }

    static void assertOAuthError(Http.Response r, int status, String error, String wardenError) {
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        assertThat(r.json().get("error").asText()).as(r.body()).isEqualTo(error);
        if (wardenError != null) {
            assertThat(r.json().get("warden_error").asText()).as(r.body()).isEqualTo(wardenError);
        }
    }

    static void assertProblem(Http.Response r, int status, String code) {
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        assertThat(r.json().get("code").asText()).as(r.body()).isEqualTo(code);
    }

    static String basic(String id, String secret) {
        return "Basic " + Base64.getEncoder().encodeToString((id + ":" + secret).getBytes(StandardCharsets.UTF_8));
    }

    static Http.Response postForm(String path, String authorization, String form) {
        HttpRequest.Builder b = http.builder(path, null)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return http.send(b);
    }

    static String enc(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------ finding 1

    @Test
    void finding1_tokenExchangeHoldsEveryMaxDepthOfTheChainAndPassesOnOnlyTheUsersAuthority() throws Exception {
        User alice = newUser();
        User bob = newUser();
        String subject = userToken(alice);

        // Alice delegates A1 -> B1 with maxDepth 1; Bob delegates B1's own permission to M1 with maxDepth 5.
        JsonNode a1 = agent(alice, READ_AGENTS);
        JsonNode b1 = agent(bob, READ_AGENTS);
        JsonNode m1 = agent(bob, "[]");
        delegate(alice, a1, b1, 1);
        delegate(bob, b1, m1, 5);
        String viaA1 = accessToken(exchange(subject, a1));
        String viaB1 = accessToken(exchange(viaA1, b1));
        // M1 <- B1 <- A1 is two hops: past alice's maxDepth of one.
        Http.Response tooDeep = exchange(viaB1, m1);
        assertOAuthError(tooDeep, 400, "invalid_request", "chain_depth_exceeded");
        assertThat(tooDeep.json().get("error_description").asText()).contains("at most 1");

        // Deep enough, but B2 passes on its own permission, not what reached it from alice: refused.
        JsonNode a2 = agent(alice, READ_AGENTS);
        JsonNode b2 = agent(bob, READ_AGENTS);
        JsonNode m2 = agent(bob, "[]");
        delegate(alice, a2, b2, 3);
        delegate(bob, b2, m2, 5);
        String viaB2 = accessToken(exchange(accessToken(exchange(subject, a2)), b2));
        Http.Response unrelated = exchange(viaB2, m2);
        assertOAuthError(unrelated, 400, "invalid_scope", null);
        assertThat(unrelated.json().get("error_description").asText()).contains("subject token's chain");

        // A delegation that passes on what alice gave (B3 holds nothing of its own) is a legitimate second hop.
        JsonNode b3 = agent(bob, "[]");
        JsonNode m3 = agent(bob, "[]");
        delegate(alice, a2, b3, 3);
        delegate(bob, b3, m3, 5);
        String viaB3 = accessToken(exchange(accessToken(exchange(subject, a2)), b3));
        String viaM3 = accessToken(exchange(viaB3, m3));
        JsonNode claims =
                Json.mapper().readTree(SignedJWT.parse(viaM3).getPayload().toString());
        assertThat(claims.get("sub").asText()).isEqualTo(alice.id());
        assertThat(claims.at("/act/sub").asText()).isEqualTo(m3.get("id").asText());
        assertThat(claims.at("/act/act/act/sub").asText())
                .isEqualTo(a2.get("id").asText());
        assertThat(http.get("/agents", viaM3).status()).isEqualTo(200);
    }

    // ------------------------------------------------------------------ finding 2

    @Test
    void finding2_aMembersAdminRoleCannotPromoteItsHolderNorHandOutMoreThanItHolds() {
        User alice = newUser();
        User mallory = newUser();
        User carol = newUser();
        User dave = newUser();
        String org = http.post("/admin/v1/organizations", alice.session(), "{\"name\":\"Review org\"}")
                .json()
                .get("id")
                .asText();
        String members = "/admin/v1/organizations/" + org + "/members";
        assertThat(http.post(
                                "/admin/v1/organizations/" + org + "/roles",
                                alice.session(),
                                "{\"name\":\"member-admins\",\"permissions\":[\"members:admin\"]}")
                        .status())
                .isEqualTo(201);
        assertThat(http.post(
                                members,
                                alice.session(),
                                "{\"userId\":\"" + mallory.id() + "\",\"role\":\"member-admins\"}")
                        .status())
                .isEqualTo(201);
        String agentOfAlice = http.post(
                        "/agents",
                        alice.session(),
                        "{\"ownerId\":\"" + alice.id() + "\",\"name\":\"x\","
                                + "\"type\":\"autonomous\",\"permissions\":[]}")
                .json()
                .get("id")
                .asText();

        // The review's attack: mallory makes herself admin.
        assertProblem(
                http.patch(members + "/" + mallory.id(), mallory.session(), "{\"role\":\"admin\"}"), 403, "forbidden");
        // Nor may she hand out what she does not hold, or touch a member who holds more.
        Http.Response handOut =
                http.post(members, mallory.session(), "{\"userId\":\"" + carol.id() + "\",\"role\":\"admin\"}");
        assertProblem(handOut, 403, "forbidden");
        assertThat(handOut.json().get("errors").get(0).get("field").asText()).isEqualTo("role");
        assertThat(handOut.json().get("errors").get(0).get("message").asText()).contains("agents:admin");
        assertProblem(
                http.patch(members + "/" + alice.id(), mallory.session(), "{\"role\":\"member\"}"), 403, "forbidden");
        // ... so alice's agents stay out of her reach.
        assertProblem(
                http.post("/admin/v1/organizations/" + org + "/agents/" + agentOfAlice + "/suspend", mallory.session()),
                403,
                "forbidden");
        assertThat(http.get("/agents/" + agentOfAlice, alice.session())
                        .json()
                        .get("status")
                        .asText())
                .isEqualTo("active");
        // What her role does allow still works: adding a plain member.
        assertThat(http.post(members, mallory.session(), "{\"userId\":\"" + carol.id() + "\",\"role\":\"member\"}")
                        .status())
                .isEqualTo(201);

        // Nobody changes their own role, an admin included; owners keep the owner role to themselves.
        assertThat(http.post(members, alice.session(), "{\"userId\":\"" + dave.id() + "\",\"role\":\"admin\"}")
                        .status())
                .isEqualTo(201);
        assertProblem(http.patch(members + "/" + dave.id(), dave.session(), "{\"role\":\"member\"}"), 403, "forbidden");
        assertProblem(http.patch(members + "/" + carol.id(), dave.session(), "{\"role\":\"owner\"}"), 403, "forbidden");
        assertThat(http.patch(members + "/" + carol.id(), dave.session(), "{\"role\":\"admin\"}")
                        .status())
                .isEqualTo(200);
    }

    // ------------------------------------------------------------------ finding 3

    static Http.Response authorizeAs(String clientId) {
        Map<String, String> request = OAuthDriver.request(clientId, OAuthDriver.Pkce.fresh(), "s");
        request.put("redirect_uri", "http://127.0.0.1:9/cb");
        return http.get(
                "/oauth/authorize?"
                        + request.entrySet().stream()
                                .map(e -> e.getKey() + "=" + enc(e.getValue()))
                                .reduce((x, y) -> x + "&" + y)
                                .orElseThrow(),
                null);
    }

    @Test
    void finding3_aMetadataDocumentFetchHasOneDeadlineIsCachedWhenItFailsAndKeepsToItsPort() {
        // A well-behaved document on an allowed port: the request is valid (the browser goes to sign in).
        Http.Response good = authorizeAs(documents.url("/good.json"));
        assertThat(good.status()).as(good.body()).isEqualTo(302);
        assertThat(good.header("Location").orElseThrow()).startsWith("/oauth/login");
        // Signed in, the consent page names the document's host beside the name the document gave itself.
        User user = newUser();
        Map<String, String> request = OAuthDriver.request(documents.url("/good.json"), OAuthDriver.Pkce.fresh(), "s");
        request.put("redirect_uri", "http://127.0.0.1:9/cb");
        Http.Response toConsent = driver.getWithSession(authorizePath(request), user.session());
        Http.Response consent =
                driver.getWithSession(toConsent.header("Location").orElseThrow(), user.session());
        assertThat(consent.body()).contains("Document client (localhost)");

        // A server that sends its headers and then a byte every half second: the fetch ends at its deadline (5 s),
        // not when the server stops (60 s).
        Instant start = Instant.now();
        Http.Response slow = authorizeAs(documents.url("/slow.json"));
        Duration took = Duration.between(start, Instant.now());
        assertThat(slow.status()).as(slow.body()).isEqualTo(400);
        assertThat(slow.body()).contains("did not arrive within 5 s");
        assertThat(took).as("the fetch ended at its deadline").isLessThan(Duration.ofSeconds(20));
        // The failure is remembered: asking again costs no fetch.
        assertThat(authorizeAs(documents.url("/slow.json")).status()).isEqualTo(400);
        assertThat(documents.hits("/slow.json")).isEqualTo(1);

        // Only the configured ports (443 by default): another port is refused without a connection.
        Http.Response otherPort = authorizeAs("https://localhost:" + (documents.port() == 1 ? 2 : 1) + "/good.json");
        assertThat(otherPort.status()).isEqualTo(400);
        assertThat(otherPort.body()).contains("is not allowed");
    }

    // ------------------------------------------------------------------ finding 4

    @Test
    void finding4_clientsAnyoneCanRegisterGetAnErrorPageNotAnErrorRedirect() {
        Http.Response reg = http.post(
                "/mcp/register",
                null,
                "{\"client_name\":\"Phish\",\"redirect_uris\":"
                        + "[\"https://anything.example/cb\"],\"token_endpoint_auth_method\":\"none\"}");
        String client = reg.json().get("client_id").asText();
        // The review's request: no session, a bad response_type.
        Http.Response r = http.get(
                "/oauth/authorize?client_id=" + client + "&redirect_uri=" + enc("https://anything.example/cb")
                        + "&response_type=x",
                null);
        assertThat(r.status()).as(r.body()).isEqualTo(400);
        assertThat(r.header("Location")).isEmpty();
        assertThat(r.header("Content-Type").orElseThrow()).startsWith("text/html");
        assertThat(r.body()).contains("anything.example").contains("unsupported_response_type");
        // A metadata-document client is treated the same.
        Http.Response doc = http.get(
                "/oauth/authorize?client_id=" + enc(documents.url("/good.json")) + "&redirect_uri="
                        + enc("http://127.0.0.1:9/cb") + "&response_type=x",
                null);
        assertThat(doc.status()).isEqualTo(400);
        assertThat(doc.header("Location")).isEmpty();

        // A client an administrator registered (initial access token) still gets RFC 6749 error redirects.
        Http.Response vetted = http.post(
                "/oauth/register",
                REGISTRATION_TOKEN,
                "{\"redirect_uris\":" + "[\"https://partner.example/cb\"],\"token_endpoint_auth_method\":\"none\"}");
        assertThat(vetted.status()).as(vetted.body()).isEqualTo(201);
        Http.Response redirected = http.get(
                "/oauth/authorize?client_id=" + vetted.json().get("client_id").asText() + "&redirect_uri="
                        + enc("https://partner.example/cb") + "&response_type=x&state=s",
                null);
        assertThat(redirected.status()).isEqualTo(302);
        assertThat(redirected.header("Location").orElseThrow())
                .startsWith("https://partner.example/cb?error=unsupported_response_type");
    }

    // ------------------------------------------------------------------ finding 5

    @Test
    void finding5_aNulInABasicClientIdOrInAPathSegmentIsA4xxNotA500() {
        for (String path : List.of("/oauth/token", "/oauth/introspect", "/oauth/revoke", "/auth/device/code")) {
            for (String credential : List.of(
                    basic("%00", "x"),
                    basic("a%00b", "x"),
                    basic("id", "%00"),
                    "Basic " + Base64.getEncoder().encodeToString("a\u0000b:x".getBytes(StandardCharsets.UTF_8)))) {
                Http.Response r =
                        postForm(path, credential, "grant_type=client_credentials&token=t&scope=agents%3Aread");
                assertOAuthError(r, 401, "invalid_client", null);
            }
        }
        Http.Response nul = http.delete("/auth/tokens/%00", warden.adminToken());
        assertProblem(nul, 400, "validation_invalid");
        assertThat(nul.json().get("errors").get(0).get("field").asText()).isEqualTo("id");
        // Every path parameter, whatever route reads it: the rule is held where routes are mounted.
        for (String path : List.of("/webhooks/a%00b", "/agents/%00/oauth-client", "/delegations/%00")) {
            assertProblem(http.delete(path, warden.adminToken()), 400, "validation_invalid");
        }
    }

    // ------------------------------------------------------------------ finding 6

    @Test
    void finding6_introspectionAnswersAClientOnlyAboutItsOwnTokens() {
        User user = newUser();
        String token = userToken(user);
        Http.Response stranger = http.post("/mcp/register", null, "{\"redirect_uris\":[\"https://x.example/cb\"]}");
        String id = stranger.json().get("client_id").asText();
        String secret = stranger.json().get("client_secret").asText();
        Http.Response asked = postForm("/oauth/introspect", basic(id, secret), "token=" + enc(token));
        assertThat(asked.status()).isEqualTo(200);
        assertThat(asked.json().toString()).isEqualTo("{\"active\":false}");
        // The token's own client learns about it.
        Http.Response own = postForm("/oauth/introspect", null, "client_id=" + enc(app) + "&token=" + enc(token));
        assertThat(own.json().get("active").asBoolean()).isTrue();
        assertThat(own.json().get("sub").asText()).isEqualTo(user.id());
    }

    // ------------------------------------------------------------------ finding 7

    @Test
    void finding7_aPublicClientsUserIsAskedEveryTimeRememberedConsentOrNot() {
        User user = newUser();
        userToken(user); // consents once, and the consent is remembered
        Map<String, String> again = OAuthDriver.request(app, OAuthDriver.Pkce.fresh(), "st");
        again.put("scope", "agents:read");
        Http.Response r = driver.getWithSession(authorizePath(again), user.session());
        assertThat(r.status()).isEqualTo(302);
        assertThat(r.header("Location").orElseThrow())
                .as("no code without the user")
                .startsWith("/oauth/consent?");
    }

    static String authorizePath(Map<String, String> params) {
        return "/mcp/authorize?"
                + params.entrySet().stream()
                        .map(e -> enc(e.getKey()) + "=" + enc(e.getValue()))
                        .reduce((x, y) -> x + "&" + y)
                        .orElseThrow();
    }

    // ------------------------------------------------------------------ finding 8

    static Http.Response withCookie(String method, String path, String session, Map<String, String> headers) {
        HttpRequest.Builder b = http.builder(path, null)
                .header("Cookie", "warden_session=" + session)
                .method(method, HttpRequest.BodyPublishers.noBody());
        headers.forEach(b::header);
        return http.send(b);
    }

    @Test
    void finding8_aCookieAuthenticatedStateChangeMustComeFromTheIssuersOrigin() {
        User user = newUser();
        String agent = agent(user, "[]").get("id").asText();
        String rotate = "/agents/" + agent + "/rotate";
        // The review's request: a body-less POST from a sibling origin of the same site.
        assertProblem(
                withCookie("POST", rotate, user.session(), Map.of("Origin", "http://localhost:1")),
                403,
                "cross_origin_request");
        assertProblem(withCookie("POST", rotate, user.session(), Map.of()), 403, "cross_origin_request");
        assertProblem(
                withCookie("POST", rotate, user.session(), Map.of("Sec-Fetch-Site", "same-site")),
                403,
                "cross_origin_request");
        assertProblem(
                withCookie("DELETE", "/agents/" + agent, user.session(), Map.of("Origin", "null")),
                403,
                "cross_origin_request");
        // Warden's own pages may.
        assertThat(withCookie("POST", rotate, user.session(), Map.of("Origin", issuer))
                        .status())
                .isEqualTo(200);
        assertThat(withCookie("POST", rotate, user.session(), Map.of("Sec-Fetch-Site", "same-origin"))
                        .status())
                .isEqualTo(200);
        // Reading needs no origin, and a bearer token is not a cookie a browser sends by itself.
        assertThat(withCookie("GET", "/agents/" + agent, user.session(), Map.of("Origin", "http://localhost:1"))
                        .status())
                .isEqualTo(200);
        assertThat(http.send(http.builder(rotate, user.session())
                                .header("Origin", "http://localhost:1")
                                .POST(HttpRequest.BodyPublishers.noBody()))
                        .status())
                .isEqualTo(200);
    }

    // ------------------------------------------------------------------ finding 9

    @Test
    void finding9_theRegisteredAuthMethodIsEnforced() {
        Http.Response reg = http.post(
                "/mcp/register",
                null,
                "{\"redirect_uris\":[\"" + OAuthDriver.REDIRECT + "\"],"
                        + "\"token_endpoint_auth_method\":\"client_secret_basic\"}");
        String id = reg.json().get("client_id").asText();
        String secret = reg.json().get("client_secret").asText();
        User user = newUser();
        OAuthDriver.Pkce pkce = OAuthDriver.Pkce.fresh();
        String code = OAuthDriver.query(driver.authorize(user.session(), OAuthDriver.request(id, pkce, "s")))
                .get("code");
        String form = "grant_type=authorization_code&code=" + enc(code) + "&redirect_uri=" + enc(OAuthDriver.REDIRECT)
                + "&code_verifier=" + pkce.verifier();
        Http.Response post =
                postForm("/oauth/token", null, form + "&client_id=" + enc(id) + "&client_secret=" + enc(secret));
        assertOAuthError(post, 401, "invalid_client", null);
        assertThat(post.json().get("error_description").asText()).contains("client_secret_basic");
        // The code was not spent by the refused attempt.
        assertThat(postForm("/oauth/token", basic(id, secret), form).status()).isEqualTo(200);
    }

    @Test
    void finding9_theRefreshGrantNeedsAClientThatRegisteredIt() {
        Http.Response reg = http.post(
                "/mcp/register",
                null,
                "{\"redirect_uris\":[\"" + OAuthDriver.REDIRECT + "\"],"
                        + "\"grant_types\":[\"authorization_code\"],\"token_endpoint_auth_method\":\"none\"}");
        String client = reg.json().get("client_id").asText();
        User user = newUser();
        OAuthDriver.Pkce pkce = OAuthDriver.Pkce.fresh();
        String code = OAuthDriver.query(driver.authorize(user.session(), OAuthDriver.request(client, pkce, "s")))
                .get("code");
        Http.Response tokens = driver.exchange(client, code, pkce);
        assertThat(tokens.status()).as(tokens.body()).isEqualTo(200);
        String refresh = tokens.json().path("refresh_token").asText("wdn_rft_none");
        assertOAuthError(
                driver.token(Map.of("grant_type", "refresh_token", "refresh_token", refresh, "client_id", client)),
                400,
                "unauthorized_client",
                null);
    }

    @Test
    void finding9_unbindingAServiceAgentsClientEndsItsTokensAtOnce() {
        User owner = newUser();
        Http.Response svc = http.post(
                "/agents",
                owner.session(),
                "{\"ownerId\":\"" + owner.id() + "\",\"name\":\"s\"," + "\"type\":\"service\",\"permissions\":"
                        + READ_AGENTS + "}");
        String id = svc.json().get("id").asText();
        String secret = svc.json().get("token").asText();
        assertThat(http.post("/agents/" + id + "/oauth-client", owner.session()).status())
                .isEqualTo(201);
        String token = accessToken(postForm("/oauth/token", basic(id, secret), "grant_type=client_credentials"));
        assertThat(http.get("/agents/" + id, token).status()).isEqualTo(200);

        assertThat(http.delete("/agents/" + id + "/oauth-client", owner.session())
                        .status())
                .isEqualTo(204);
        assertThat(http.get("/agents/" + id, token).status())
                .as("the next request after unbinding")
                .isEqualTo(401);
        // Binding again issues new tokens; it does not bring back the old ones.
        assertThat(http.post("/agents/" + id + "/oauth-client", owner.session()).status())
                .isEqualTo(201);
        assertThat(http.get("/agents/" + id, token).status()).isEqualTo(401);
        String fresh = accessToken(postForm("/oauth/token", basic(id, secret), "grant_type=client_credentials"));
        assertThat(http.get("/agents/" + id, fresh).status()).isEqualTo(200);
    }
}
