package dev.warden.api.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jwt.SignedJWT;
import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.api.users.UsersConfig;
import dev.warden.pipeline.contract.Json;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The authorization server and the MCP endpoint over real HTTP, against a real broker and database: discovery,
 * registration, authorize with its page and redirect errors, the token grants and each OAuth failure class of
 * SPEC Errors, access tokens on the REST API and /mcp, revocation, introspection and CORS.
 */
class OAuthServerIT {
    static final String REGISTRATION_TOKEN = "initial-access-token-for-tests";

    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b -> b.users(
                    UsersConfig.builder().argon2(1024, 1, 1).build())
            .rateLimit(RateLimitConfig.builder()
                    .endpoint(AuthEndpoint.OAUTH_AUTHORIZE, 100_000, 60)
                    .endpoint(AuthEndpoint.OAUTH_INTROSPECT, 100_000, 60)
                    .endpoint(AuthEndpoint.OAUTH_REVOKE, 100_000, 60)
                    .endpoint(AuthEndpoint.OAUTH_TOKEN, 1000, 60)
                    .endpoint(AuthEndpoint.REGISTRATION, 1000, 60)
                    .endpoint(AuthEndpoint.SIGN_UP, 1000, 60)
                    .build())
            .oauth(OAuthConfig.builder()
                    .registrationTokens(List.of(REGISTRATION_TOKEN))
                    .keyEncryptionKey(Base64.getEncoder().encodeToString(new byte[32]))
                    .build()));

    static Http http;
    static OAuthDriver driver;
    static String issuer;
    static int users;

    @BeforeAll
    static void setUp() {
        http = warden.http();
        driver = new OAuthDriver(http);
        issuer = http.baseUri().toString().replaceAll("/$", "");
    }

    static String newSession() {
        return driver.signUp("oauth_user_" + (++users));
    }

    /** A full code flow for a fresh user and public client: the token response. */
    static JsonNode tokensFor(String session, String clientId, Map<String, String> extra) {
        OAuthDriver.Pkce pkce = OAuthDriver.Pkce.fresh();
        Map<String, String> request = OAuthDriver.request(clientId, pkce, "st");
        request.putAll(extra);
        URI back = driver.authorize(session, request);
        Map<String, String> answer = OAuthDriver.query(back);
        assertThat(answer)
                .containsEntry("iss", issuer)
                .containsEntry("state", "st")
                .containsKey("code");
        Http.Response token = driver.exchange(clientId, answer.get("code"), pkce);
        assertThat(token.status()).as(token.body()).isEqualTo(200);
        return token.json();
    }

    @Test
    void discoveryDocumentsNameOneIssuerAndEveryEndpoint() {
        Http.Response as = http.get("/.well-known/oauth-authorization-server", null);
        assertThat(as.status()).isEqualTo(200);
        JsonNode doc = as.json();
        assertThat(doc.get("issuer").asText()).isEqualTo(issuer);
        assertThat(doc.get("token_endpoint").asText()).isEqualTo(issuer + "/mcp/token");
        assertThat(doc.get("authorization_endpoint").asText()).isEqualTo(issuer + "/mcp/authorize");
        assertThat(doc.get("jwks_uri").asText()).isEqualTo(issuer + "/oauth/jwks");
        assertThat(doc.get("code_challenge_methods_supported").toString()).isEqualTo("[\"S256\"]");
        assertThat(doc.get("acr_values_supported").get(0).asText()).isEqualTo("mfa");
        assertThat(doc.get("response_types_supported").toString()).isEqualTo("[\"code\"]");
        assertThat(doc.get("token_endpoint_auth_methods_supported").toString()).contains("\"none\"");
        assertThat(doc.get("authorization_response_iss_parameter_supported").asBoolean())
                .isTrue();
        assertThat(doc.get("client_id_metadata_document_supported").asBoolean()).isTrue();
        assertThat(http.get("/.well-known/openid-configuration", null).json()).isEqualTo(doc);

        JsonNode mcp =
                http.get("/.well-known/oauth-protected-resource/mcp", null).json();
        assertThat(mcp.get("resource").asText()).isEqualTo(issuer + "/mcp");
        assertThat(mcp.get("authorization_servers").get(0).asText()).isEqualTo(issuer);
        JsonNode rest = http.get("/.well-known/oauth-protected-resource", null).json();
        assertThat(rest.get("resource").asText()).isEqualTo(issuer);
        assertThat(http.get("/.well-known/oauth-protected-resource/nothing", null)
                        .status())
                .isEqualTo(404);
    }

    @Test
    void signingKeysAreStoredSealedAndPublishedPublicOnly() throws Exception {
        assertThat(http.get("/oauth/jwks", null).status()).isEqualTo(200);
        try (java.sql.Connection conn =
                        java.sql.DriverManager.getConnection(warden.infra().jdbcUrl());
                java.sql.Statement st = conn.createStatement();
                java.sql.ResultSet rs = st.executeQuery("SELECT private_jwk, public_jwk FROM "
                        + warden.config().postgres().schema().orElseThrow() + ".oauth_signing_keys")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).startsWith("aesgcm:v1:").doesNotContain("\"d\"");
            assertThat(rs.getString(2)).doesNotContain("\"d\"");
        }
        assertThat(http.get("/oauth/jwks", null).body()).doesNotContain("\"d\"");
    }

    @Test
    void aProtectedRouteChallengesWithItsResourceMetadata() {
        Http.Response mcp = http.post("/mcp", null, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
        assertThat(mcp.status()).isEqualTo(401);
        assertThat(mcp.raw().headers().allValues("WWW-Authenticate"))
                .containsExactly("Bearer resource_metadata=\"" + issuer
                        + "/.well-known/oauth-protected-resource/mcp\", scope=\"mcp\"");
        Http.Response bad = http.get("/agents", "eyJhbGciOiJFUzI1NiJ9.e30.c2ln");
        assertThat(bad.status()).isEqualTo(401);
        assertThat(bad.raw().headers().allValues("WWW-Authenticate"))
                .containsExactly("Bearer error=\"invalid_token\", " + "resource_metadata=\"" + issuer
                        + "/.well-known/oauth-protected-resource\", scope=\"agents:read\"");
    }

    @Test
    void registrationEchoesTheMetadataAndRefusesBadRedirects() {
        Http.Response confidential = http.post(
                "/mcp/register",
                null,
                "{\"client_name\":\"Conf\",\"redirect_uris\":[\"https://app.example/cb\"],\"unknown_member\":1}");
        assertThat(confidential.status()).as(confidential.body()).isEqualTo(201);
        JsonNode c = confidential.json();
        assertThat(c.get("client_secret").asText()).startsWith("wdn_cls_");
        assertThat(c.get("client_secret_expires_at").asLong()).isZero();
        assertThat(c.get("token_endpoint_auth_method").asText()).isEqualTo("client_secret_basic");
        assertThat(c.get("redirect_uris").toString()).isEqualTo("[\"https://app.example/cb\"]");
        assertThat(c.has("unknown_member")).isFalse();

        Http.Response pub = http.post(
                "/mcp/register",
                null,
                "{\"redirect_uris\":[\"http://localhost:3000/cb\"],\"token_endpoint_auth_method\":\"none\"}");
        assertThat(pub.status()).isEqualTo(201);
        assertThat(pub.json().has("client_secret")).isFalse();

        for (String uri : List.of("http://app.example/cb", "https://app.example/cb#frag", "javascript:alert(1)")) {
            Http.Response bad = http.post("/mcp/register", null, "{\"redirect_uris\":[\"" + uri + "\"]}");
            assertThat(bad.status()).as(uri).isEqualTo(400);
            assertThat(bad.json().get("error").asText()).as(uri).isEqualTo("invalid_redirect_uri");
        }
        Http.Response method = http.post(
                "/mcp/register",
                null,
                "{\"redirect_uris\":[\"https://a.example/cb\"],\"token_endpoint_auth_method\":\"private_key_jwt\"}");
        assertThat(method.json().get("error").asText()).isEqualTo("invalid_client_metadata");
    }

    @Test
    void oauthRegisterNeedsAnInitialAccessToken() {
        String body = "{\"redirect_uris\":[\"https://a.example/cb\"]}";
        Http.Response none = http.post("/oauth/register", null, body);
        assertThat(none.status()).isEqualTo(401);
        assertThat(none.json().get("error").asText()).isEqualTo("invalid_token");
        assertThat(http.post("/oauth/register", "wrong-token", body).status()).isEqualTo(401);
        assertThat(http.post("/oauth/register", REGISTRATION_TOKEN, body).status())
                .isEqualTo(201);
    }

    @Test
    void errorsBeforeTheRedirectIsTrustedArePagesNotRedirects() {
        String session = newSession();
        String client = driver.registerPublicClient();
        OAuthDriver.Pkce pkce = OAuthDriver.Pkce.fresh();
        Map<String, String> unknownClient = OAuthDriver.request("no-such-client", pkce, "s");
        Http.Response page = driver.getWithSession(OAuthDriver.authorizePath(unknownClient), session);
        assertThat(page.status()).isEqualTo(400);
        assertThat(page.header("Location")).isEmpty();
        assertThat(page.header("Content-Type").orElseThrow()).startsWith("text/html");
        assertThat(page.header("Content-Security-Policy").orElseThrow()).contains("frame-ancestors 'none'");

        Map<String, String> otherRedirect = OAuthDriver.request(client, pkce, "s");
        otherRedirect.put("redirect_uri", "https://attacker.example/cb");
        Http.Response mismatch = driver.getWithSession(OAuthDriver.authorizePath(otherRedirect), session);
        assertThat(mismatch.status()).isEqualTo(400);
        assertThat(mismatch.header("Location")).isEmpty();
    }

    @Test
    void errorsAfterTheRedirectIsTrustedGoBackWithIss() {
        String session = newSession();
        // Error redirects go to vetted clients only: registered with an initial access token (docs/security.md).
        Http.Response vetted = http.post(
                "/oauth/register",
                REGISTRATION_TOKEN,
                "{\"redirect_uris\":[\"" + OAuthDriver.REDIRECT + "\"],\"token_endpoint_auth_method\":\"none\"}");
        assertThat(vetted.status()).as(vetted.body()).isEqualTo(201);
        String client = vetted.json().get("client_id").asText();
        Map<String, String> expected = Map.of(
                "response_type", "unsupported_response_type",
                "code_challenge_method", "invalid_request",
                "resource", "invalid_target",
                "scope", "invalid_scope");
        Map<String, String> values = Map.of(
                "response_type",
                "token",
                "code_challenge_method",
                "plain",
                "resource",
                "https://elsewhere.example/",
                "scope",
                "no-such-scope");
        expected.forEach((param, error) -> {
            Map<String, String> request = OAuthDriver.request(client, OAuthDriver.Pkce.fresh(), "s1");
            request.put(param, values.get(param));
            Http.Response r = driver.getWithSession(OAuthDriver.authorizePath(request), session);
            assertThat(r.status()).as(param).isEqualTo(302);
            Map<String, String> back =
                    OAuthDriver.query(URI.create(r.header("Location").orElseThrow()));
            assertThat(back)
                    .as(param)
                    .containsEntry("error", error)
                    .containsEntry("state", "s1")
                    .containsEntry("iss", issuer);
        });
        Map<String, String> noPkce = OAuthDriver.request(client, OAuthDriver.Pkce.fresh(), "s2");
        noPkce.remove("code_challenge");
        Http.Response r = driver.getWithSession(OAuthDriver.authorizePath(noPkce), session);
        assertThat(OAuthDriver.query(URI.create(r.header("Location").orElseThrow())))
                .containsEntry("error", "invalid_request");
    }

    @Test
    void withoutASessionTheBrowserIsSentToTheLoginPage() {
        String client = driver.registerPublicClient();
        Http.Response r =
                http.get(OAuthDriver.authorizePath(OAuthDriver.request(client, OAuthDriver.Pkce.fresh(), "s")), null);
        assertThat(r.status()).isEqualTo(302);
        assertThat(r.header("Location").orElseThrow()).startsWith("/oauth/login?return_to=%2Fmcp%2Fauthorize%3F");
    }

    @Test
    void theCodeFlowIssuesAVerifiableRfc9068Token() throws Exception {
        String session = newSession();
        String client = driver.registerPublicClient();
        JsonNode tokens = tokensFor(session, client, Map.of("resource", issuer + "/mcp"));
        assertThat(tokens.get("token_type").asText()).isEqualTo("Bearer");
        assertThat(tokens.get("expires_in").asLong()).isEqualTo(3600);
        assertThat(tokens.get("scope").asText()).isEqualTo("mcp");
        assertThat(tokens.get("refresh_token").asText()).startsWith("wdn_rft_");

        SignedJWT jwt = SignedJWT.parse(tokens.get("access_token").asText());
        assertThat(jwt.getHeader().getType().getType()).isEqualTo("at+jwt");
        JWKSet keys = JWKSet.parse(http.get("/oauth/jwks", null).body());
        ECKey key = (ECKey) keys.getKeyByKeyId(jwt.getHeader().getKeyID());
        assertThat(key.isPrivate()).isFalse();
        assertThat(jwt.verify(new ECDSAVerifier(key))).isTrue();
        assertThat(jwt.getJWTClaimsSet().getIssuer()).isEqualTo(issuer);
        assertThat(jwt.getJWTClaimsSet().getAudience()).containsExactly(issuer + "/mcp");
        assertThat(jwt.getJWTClaimsSet().getStringClaim("client_id")).isEqualTo(client);
        assertThat(jwt.getJWTClaimsSet().getJWTID()).isNotBlank();

        // A token for /mcp is refused on the REST API (another audience), and works on /mcp.
        String access = tokens.get("access_token").asText();
        Http.Response rest = http.get("/agents", access);
        assertThat(rest.status()).isEqualTo(401);
        assertThat(rest.header("WWW-Authenticate").orElseThrow()).contains("invalid_token");
        Http.Response init = http.send(http.builder("/mcp", access)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
                        + "\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                        + "\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}}")));
        assertThat(init.status()).as(init.body()).isEqualTo(200);
        assertThat(init.json().at("/result/protocolVersion").asText()).isEqualTo("2025-06-18");
        Http.Response call = http.send(http.builder("/mcp", access)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
                        + "\"params\":{\"name\":\"dashboard_stats\",\"arguments\":{}}}")));
        assertThat(call.json().at("/result/isError").asBoolean()).isFalse();
        assertThat(call.json().at("/result/structuredContent/totalAgents").asLong())
                .isZero();
        Http.Response note = http.send(http.builder("/mcp", access)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}")));
        assertThat(note.status()).isEqualTo(202);
        assertThat(http.get("/mcp", access).status()).isEqualTo(405);
    }

    /** An access token for /mcp (scope mcp) of a fresh user, by the code flow. */
    static String mcpAccessToken() {
        return tokensFor(newSession(), driver.registerPublicClient(), Map.of("resource", issuer + "/mcp"))
                .get("access_token")
                .asText();
    }

    /** A request of MCP 2026-07-28: {@code params} with the per-request {@code _meta} envelope at {@code version}. */
    static ObjectNode modernRequest(Object id, String method, String version, ObjectNode params) {
        ObjectNode message = Json.mapper().createObjectNode().put("jsonrpc", "2.0");
        message.set("id", Json.mapper().valueToTree(id));
        message.put("method", method);
        ObjectNode meta = params.putObject("_meta");
        meta.put("io.modelcontextprotocol/protocolVersion", version);
        meta.putObject("io.modelcontextprotocol/clientInfo").put("name", "it").put("version", "1");
        meta.putObject("io.modelcontextprotocol/clientCapabilities");
        message.set("params", params);
        return message;
    }

    /** POSTs {@code message} to /mcp with {@code headers} (name, value, name, value, …), as a client of any revision. */
    static Http.Response mcp(String access, ObjectNode message, String... headers) {
        HttpRequest.Builder b = http.builder("/mcp", access)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream");
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return http.send(b.POST(HttpRequest.BodyPublishers.ofString(message.toString())));
    }

    /** POSTs a 2026-07-28 request with the headers such a client sends: version, method and, for a call, name. */
    static Http.Response modern(String access, Object id, String method, ObjectNode params) {
        ObjectNode message = modernRequest(id, method, "2026-07-28", params);
        return params.has("name")
                ? mcp(
                        access,
                        message,
                        "MCP-Protocol-Version",
                        "2026-07-28",
                        "Mcp-Method",
                        method,
                        "Mcp-Name",
                        params.get("name").asText())
                : mcp(access, message, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method);
    }

    static ObjectNode params() {
        return Json.mapper().createObjectNode();
    }

    static ObjectNode call(String tool) {
        ObjectNode params = params().put("name", tool);
        params.putObject("arguments");
        return params;
    }

    @Test
    void aClientOf2026_07_28DiscoversAndCallsToolsWithoutInitialize() {
        String access = mcpAccessToken();

        Http.Response discover = modern(access, "d-1", "server/discover", params());
        assertThat(discover.status()).as(discover.body()).isEqualTo(200);
        assertThat(discover.header("Content-Type").orElseThrow()).startsWith("application/json");
        assertThat(discover.header("Mcp-Session-Id")).isEmpty();
        assertThat(discover.json().get("id").asText()).isEqualTo("d-1");
        JsonNode found = discover.json().get("result");
        assertThat(found.get("resultType").asText()).isEqualTo("complete");
        assertThat(found.get("supportedVersions").toString()).isEqualTo("[\"2026-07-28\"]");
        assertThat(found.at("/capabilities/tools").isObject()).isTrue();
        assertThat(found.get("instructions").asText()).contains(issuer);
        assertThat(found.get("ttlMs").isIntegralNumber()).isTrue();
        assertThat(found.get("ttlMs").asLong()).isPositive();
        assertThat(found.get("cacheScope").asText()).isEqualTo("public");
        assertThat(found.at("/_meta/io.modelcontextprotocol~1serverInfo/name").asText())
                .isEqualTo("warden");
        assertThat(found.at("/_meta/io.modelcontextprotocol~1serverInfo/version")
                        .isTextual())
                .isTrue();
        assertThat(found.has("protocolVersion")).isFalse();

        // No initialize: the next requests carry the envelope themselves.
        Http.Response list = modern(access, 1, "tools/list", params());
        assertThat(list.status()).as(list.body()).isEqualTo(200);
        JsonNode tools = list.json().get("result");
        assertThat(tools.get("resultType").asText()).isEqualTo("complete");
        assertThat(tools.findValuesAsText("name"))
                .contains("check_authorization", "list_agents", "get_agent", "query_audit", "dashboard_stats");
        assertThat(tools.get("ttlMs").asLong()).isPositive();
        assertThat(tools.get("cacheScope").asText()).isEqualTo("public");
        assertThat(tools.at("/_meta/io.modelcontextprotocol~1serverInfo/name").asText())
                .isEqualTo("warden");

        Http.Response called = modern(access, 2, "tools/call", call("dashboard_stats"));
        assertThat(called.status()).as(called.body()).isEqualTo(200);
        JsonNode result = called.json().get("result");
        assertThat(result.get("resultType").asText()).isEqualTo("complete");
        assertThat(result.get("isError").asBoolean()).isFalse();
        assertThat(result.at("/structuredContent/totalAgents").asLong()).isZero();
        assertThat(result.at("/_meta/io.modelcontextprotocol~1serverInfo/name").asText())
                .isEqualTo("warden");

        // A tool that fails is still a complete result the model reads.
        ObjectNode missing = call("get_agent");
        ((ObjectNode) missing.get("arguments")).put("agentId", "agt_nobody");
        JsonNode failed = modern(access, 3, "tools/call", missing).json().get("result");
        assertThat(failed.get("resultType").asText()).isEqualTo("complete");
        assertThat(failed.get("isError").asBoolean()).isTrue();

        // Mcp-Name in the base64 sentinel form is decoded before it is compared.
        Http.Response encoded = mcp(
                access,
                modernRequest(4, "tools/call", "2026-07-28", call("dashboard_stats")),
                "MCP-Protocol-Version",
                "2026-07-28",
                "Mcp-Method",
                "tools/call",
                "Mcp-Name",
                "=?base64?" + Base64.getEncoder().encodeToString("dashboard_stats".getBytes(StandardCharsets.UTF_8))
                        + "?=");
        assertThat(encoded.status()).as(encoded.body()).isEqualTo(200);
        assertThat(encoded.json().at("/result/isError").asBoolean()).isFalse();

        // The revision's errors and their HTTP statuses: an unknown tool 400 -32602; an unknown method 404 -32601,
        // initialize and ping included (2026-07-28 removed them).
        Http.Response unknownTool = modern(access, 5, "tools/call", call("nope"));
        assertThat(unknownTool.status()).isEqualTo(400);
        assertThat(unknownTool.json().at("/error/code").asInt()).isEqualTo(-32602);
        for (String method : List.of("nope", "initialize", "ping")) {
            Http.Response unknown = modern(access, 6, method, params());
            assertThat(unknown.status()).as(method).isEqualTo(404);
            assertThat(unknown.header("Content-Type").orElseThrow()).startsWith("application/json");
            assertThat(unknown.json().at("/error/code").asInt()).as(method).isEqualTo(-32601);
            assertThat(unknown.json().get("id").asInt()).isEqualTo(6);
        }
        // A notification is accepted and dropped.
        ObjectNode note = modernRequest(0, "notifications/cancelled", "2026-07-28", params());
        note.remove("id");
        assertThat(mcp(access, note, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "notifications/cancelled")
                        .status())
                .isEqualTo(202);
    }

    @Test
    void a2026_07_28RequestMustCarryItsEnvelopeAndHeadersThatMatchIt() {
        String access = mcpAccessToken();
        ObjectNode list = modernRequest(1, "tools/list", "2026-07-28", params());

        // No envelope: not a 2026-07-28 request, whatever the header says.
        ObjectNode bare = Json.mapper().createObjectNode().put("jsonrpc", "2.0").put("id", 1);
        bare.put("method", "tools/list");
        assertModernError(
                mcp(access, bare, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list"), 400, -32602);
        ObjectNode noCapabilities = list.deepCopy();
        ((ObjectNode) noCapabilities.at("/params/_meta")).remove("io.modelcontextprotocol/clientCapabilities");
        assertModernError(
                mcp(access, noCapabilities, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list"),
                400,
                -32602);
        // server/discover exists only in 2026-07-28: without the envelope it is refused, never "method not found".
        ObjectNode bareDiscover =
                Json.mapper().createObjectNode().put("jsonrpc", "2.0").put("id", 1);
        bareDiscover.put("method", "server/discover");
        assertModernError(mcp(access, bareDiscover), 400, -32602);

        // The headers must be there and agree with the body (a gateway may route on them).
        assertModernError(mcp(access, list, "Mcp-Method", "tools/list"), 400, -32020);
        assertModernError(
                mcp(access, list, "MCP-Protocol-Version", "2025-11-25", "Mcp-Method", "tools/list"), 400, -32020);
        assertModernError(mcp(access, list, "MCP-Protocol-Version", "2026-07-28"), 400, -32020);
        assertModernError(
                mcp(access, list, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call"), 400, -32020);
        assertModernError(
                mcp(
                        access,
                        list,
                        "MCP-Protocol-Version",
                        "2026-07-28",
                        "MCP-Protocol-Version",
                        "2026-07-28",
                        "Mcp-Method",
                        "tools/list"),
                400,
                -32020);
        ObjectNode dashboard = modernRequest(2, "tools/call", "2026-07-28", call("dashboard_stats"));
        assertModernError(
                mcp(access, dashboard, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call"), 400, -32020);
        for (String name : List.of("list_agents", "=?base64?not base64?=")) {
            assertModernError(
                    mcp(
                            access,
                            dashboard,
                            "MCP-Protocol-Version",
                            "2026-07-28",
                            "Mcp-Method",
                            "tools/call",
                            "Mcp-Name",
                            name),
                    400,
                    -32020);
        }

        // A version this server does not speak: -32022 naming every version it does, the request's id echoed.
        ObjectNode future = modernRequest("f", "tools/list", "2099-01-01", params());
        Http.Response unsupported =
                mcp(access, future, "MCP-Protocol-Version", "2099-01-01", "Mcp-Method", "tools/list");
        assertModernError(unsupported, 400, -32022);
        assertThat(unsupported.json().get("id").asText()).isEqualTo("f");
        assertThat(unsupported.json().at("/error/data/requested").asText()).isEqualTo("2099-01-01");
        assertThat(unsupported.json().at("/error/data/supported").toString())
                .isEqualTo(
                        "[\"2026-07-28\",\"2025-11-25\",\"2025-06-18\",\"2025-03-26\",\"2024-11-05\",\"2024-10-07\"]");
        // A handshake revision in the per-request envelope is not a 2026-07-28 request either.
        assertModernError(
                mcp(
                        access,
                        modernRequest(3, "tools/list", "2025-11-25", params()),
                        "MCP-Protocol-Version",
                        "2025-11-25",
                        "Mcp-Method",
                        "tools/list"),
                400,
                -32022);
    }

    private static void assertModernError(Http.Response r, int status, int code) {
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        assertThat(r.header("Content-Type").orElseThrow()).startsWith("application/json");
        assertThat(r.json().at("/error/code").asInt()).as(r.body()).isEqualTo(code);
    }

    @Test
    void aClientOf2025_11_25StillInitializesAndGetsTheResultsItKnows() {
        String access = mcpAccessToken();
        ObjectNode init = Json.mapper().createObjectNode().put("jsonrpc", "2.0").put("id", 1);
        init.put("method", "initialize");
        init.putObject("params")
                .put("protocolVersion", "2025-11-25")
                .<ObjectNode>set("capabilities", Json.mapper().createObjectNode())
                .putObject("clientInfo")
                .put("name", "it")
                .put("version", "1");
        Http.Response initialized = mcp(access, init);
        assertThat(initialized.status()).as(initialized.body()).isEqualTo(200);
        JsonNode result = initialized.json().get("result");
        assertThat(result.get("protocolVersion").asText()).isEqualTo("2025-11-25");
        assertThat(result.get("serverInfo").get("name").asText()).isEqualTo("warden");
        assertThat(result.has("resultType")).isFalse();

        // initialize never negotiates 2026-07-28 (that revision has no handshake): it offers the newest handshake one.
        ((ObjectNode) init.get("params")).put("protocolVersion", "2026-07-28");
        assertThat(mcp(access, init).json().at("/result/protocolVersion").asText())
                .isEqualTo("2025-11-25");

        ObjectNode list = Json.mapper().createObjectNode().put("jsonrpc", "2.0").put("id", 2);
        list.put("method", "tools/list");
        Http.Response listed = mcp(access, list, "MCP-Protocol-Version", "2025-11-25");
        assertThat(listed.status()).isEqualTo(200);
        assertThat(listed.json().at("/result/tools").size()).isEqualTo(5);
        assertThat(listed.json().get("result").has("resultType")).isFalse();
        assertThat(listed.json().get("result").has("ttlMs")).isFalse();

        ObjectNode callRequest =
                Json.mapper().createObjectNode().put("jsonrpc", "2.0").put("id", 3);
        callRequest.put("method", "tools/call").set("params", call("dashboard_stats"));
        Http.Response called = mcp(access, callRequest, "MCP-Protocol-Version", "2025-11-25");
        assertThat(called.status()).isEqualTo(200);
        assertThat(called.json().at("/result/isError").asBoolean()).isFalse();
        assertThat(called.json().get("result").has("resultType")).isFalse();

        ObjectNode ping = Json.mapper().createObjectNode().put("jsonrpc", "2.0").put("id", 4);
        ping.put("method", "ping");
        assertThat(mcp(access, ping, "MCP-Protocol-Version", "2025-11-25")
                        .json()
                        .get("result")
                        .isEmpty())
                .isTrue();
        // As before, a version nobody speaks in the header of such a request is a 400 problem.
        Http.Response unknownVersion = mcp(access, list, "MCP-Protocol-Version", "1999-01-01");
        assertThat(unknownVersion.status()).isEqualTo(400);
        assertThat(unknownVersion.header("Content-Type").orElseThrow()).startsWith("application/problem+json");
        // As before, an unknown method of these revisions is a JSON-RPC error answered 200.
        ObjectNode nope = Json.mapper().createObjectNode().put("jsonrpc", "2.0").put("id", 5);
        nope.put("method", "nope");
        Http.Response unknown = mcp(access, nope, "MCP-Protocol-Version", "2025-11-25");
        assertThat(unknown.status()).isEqualTo(200);
        assertThat(unknown.json().at("/error/code").asInt()).isEqualTo(-32601);
    }

    @Test
    void aRestTokenCarriesItsScopesAndNoMore() {
        String session = newSession();
        String client = driver.registerPublicClient();
        String access = tokensFor(session, client, Map.of("scope", "audit:read"))
                .get("access_token")
                .asText();
        assertThat(http.get("/audit", access).status()).isEqualTo(200);
        Http.Response agents = http.get("/agents", access);
        assertThat(agents.status()).isEqualTo(403);
        assertThat(agents.header("WWW-Authenticate").orElseThrow())
                .contains("error=\"insufficient_scope\"")
                .contains("scope=\"agents:read\"")
                .contains("resource_metadata=");
    }

    @Test
    void tokenRequestFailuresAreRfc6749Errors() {
        String session = newSession();
        String client = driver.registerPublicClient();
        OAuthDriver.Pkce pkce = OAuthDriver.Pkce.fresh();
        String code = OAuthDriver.query(driver.authorize(session, OAuthDriver.request(client, pkce, "s")))
                .get("code");

        // PKCE mismatch burns the code
        Http.Response wrongVerifier = driver.exchange(client, code, OAuthDriver.Pkce.fresh());
        assertError(wrongVerifier, 400, "invalid_grant");
        assertError(driver.exchange(client, code, pkce), 400, "invalid_grant");

        String code2 = OAuthDriver.query(driver.authorize(session, OAuthDriver.request(client, pkce, "s")))
                .get("code");
        Map<String, String> wrongRedirect = new HashMap<>(Map.of(
                "grant_type",
                "authorization_code",
                "code",
                code2,
                "redirect_uri",
                "http://127.0.0.1:9/other",
                "client_id",
                client,
                "code_verifier",
                pkce.verifier()));
        assertError(driver.token(wrongRedirect), 400, "invalid_grant");

        assertError(driver.token(Map.of("grant_type", "password", "client_id", client)), 400, "unsupported_grant_type");
        assertError(driver.token(Map.of("client_id", client)), 400, "invalid_request");
        assertError(
                driver.token(Map.of(
                        "grant_type",
                        "authorization_code",
                        "client_id",
                        "nobody",
                        "code",
                        "x",
                        "redirect_uri",
                        OAuthDriver.REDIRECT,
                        "code_verifier",
                        pkce.verifier())),
                401,
                "invalid_client");

        Http.Response json = http.post("/mcp/token", null, "{\"grant_type\":\"refresh_token\"}");
        assertError(json, 400, "invalid_request");
    }

    @Test
    void codeExchangesAndRefusedTokenRequestsAreEventsWithoutSecrets() {
        String session = newSession();
        String client = driver.registerPublicClient();
        JsonNode tokens = tokensFor(session, client, Map.of());
        assertError(
                driver.token(
                        Map.of("grant_type", "refresh_token", "refresh_token", "wdn_rft_stolen", "client_id", client)),
                400,
                "invalid_grant");
        List<dev.warden.api.users.EventsTopic.Event> events = dev.warden.api.users.EventsTopic.await(
                warden.infra().kafkaBootstrap(),
                warden.topics().events(),
                e -> e.type().startsWith("auth.") && e.text().contains(client),
                2);
        assertThat(events.stream().map(dev.warden.api.users.EventsTopic.Event::type))
                .containsExactly("auth.signin", "auth.failed");
        assertThat(events.get(0).json().at("/data/method").asText()).isEqualTo("oauth_authorization_code");
        assertThat(events.get(1).json().at("/data/reason").asText()).isEqualTo("invalid_grant");
        for (dev.warden.api.users.EventsTopic.Event e : events) {
            assertThat(e.text())
                    .doesNotContain("wdn_")
                    .doesNotContain(tokens.get("access_token").asText());
        }
    }

    @Test
    void aReplayedCodeRevokesWhatItIssued() {
        String session = newSession();
        String client = driver.registerPublicClient();
        OAuthDriver.Pkce pkce = OAuthDriver.Pkce.fresh();
        String code = OAuthDriver.query(driver.authorize(session, OAuthDriver.request(client, pkce, "s")))
                .get("code");
        Http.Response first = driver.exchange(client, code, pkce);
        assertThat(first.status()).isEqualTo(200);
        String access = first.json().get("access_token").asText();
        assertThat(http.get("/agents", access).status()).isEqualTo(200);
        assertError(driver.exchange(client, code, pkce), 400, "invalid_grant");
        assertThat(http.get("/agents", access).status()).isEqualTo(401);
    }

    @Test
    void refreshTokensRotateAndReuseRevokesTheFamily() {
        String session = newSession();
        String client = driver.registerPublicClient();
        JsonNode tokens = tokensFor(session, client, Map.of("scope", "agents:read audit:read"));
        String old = tokens.get("refresh_token").asText();
        Http.Response rotated = driver.token(Map.of(
                "grant_type", "refresh_token", "refresh_token", old, "client_id", client, "scope", "agents:read"));
        assertThat(rotated.status()).as(rotated.body()).isEqualTo(200);
        assertThat(rotated.json().get("scope").asText()).isEqualTo("agents:read");
        String next = rotated.json().get("refresh_token").asText();
        assertThat(next).isNotEqualTo(old);
        assertThat(rotated.header("Cache-Control").orElseThrow()).isEqualTo("no-store");

        assertError(
                driver.token(Map.of(
                        "grant_type",
                        "refresh_token",
                        "refresh_token",
                        next,
                        "client_id",
                        client,
                        "scope",
                        "agents:read webhooks:write")),
                400,
                "invalid_scope");
        assertError(
                driver.token(Map.of(
                        "grant_type",
                        "refresh_token",
                        "refresh_token",
                        next,
                        "client_id",
                        client,
                        "resource",
                        issuer + "/mcp")),
                400,
                "invalid_target");
        // the failed attempts above did not spend it; reusing the old one revokes everything
        assertError(
                driver.token(Map.of("grant_type", "refresh_token", "refresh_token", old, "client_id", client)),
                400,
                "invalid_grant");
        assertError(
                driver.token(Map.of("grant_type", "refresh_token", "refresh_token", next, "client_id", client)),
                400,
                "invalid_grant");
        assertThat(http.get("/agents", rotated.json().get("access_token").asText())
                        .status())
                .isEqualTo(401);
    }

    /**
     * The asked scope and resource reach the refresh statement as parameters (D190): a value PostgreSQL cannot hold
     * (a NUL character) is refused at the edge, naming the field, never a 500, and spends nothing.
     */
    @Test
    void aRefreshAskingForAScopeOrResourceWithANulIsRefusedAndSpendsNothing() {
        String session = newSession();
        String client = driver.registerPublicClient();
        String token = tokensFor(session, client, Map.of("scope", "agents:read"))
                .get("refresh_token")
                .asText();
        assertError(
                driver.token(Map.of(
                        "grant_type",
                        "refresh_token",
                        "refresh_token",
                        token,
                        "client_id",
                        client,
                        "scope",
                        "agents:read\u0000")),
                400,
                "invalid_request");
        assertError(
                driver.token(Map.of(
                        "grant_type",
                        "refresh_token",
                        "refresh_token",
                        token,
                        "client_id",
                        client,
                        "resource",
                        issuer + "\u0000")),
                400,
                "invalid_request");
        Http.Response rotated =
                driver.token(Map.of("grant_type", "refresh_token", "refresh_token", token, "client_id", client));
        assertThat(rotated.status()).as(rotated.body()).isEqualTo(200);
    }

    /**
     * One refresh token presented by several requests at once rotates once (D190: the statement that spends it
     * re-checks that it is unused on the row it waited for): one answer gets a pair, the others are refused as a
     * reuse, and the reuse revokes the family, the winner's new tokens included.
     */
    @Test
    void aRefreshTokenPresentedConcurrentlyRotatesOnceAndTheReuseRevokesTheFamily() throws Exception {
        String session = newSession();
        String client = driver.registerPublicClient();
        String old = tokensFor(session, client, Map.of("scope", "agents:read"))
                .get("refresh_token")
                .asText();
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        List<java.util.concurrent.Future<Http.Response>> answers = new java.util.ArrayList<>();
        try (java.util.concurrent.ExecutorService pool =
                java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 6; i++) {
                answers.add(pool.submit(() -> {
                    go.await();
                    return driver.token(
                            Map.of("grant_type", "refresh_token", "refresh_token", old, "client_id", client));
                }));
            }
            go.countDown();
        }
        List<Http.Response> issued = new java.util.ArrayList<>();
        for (java.util.concurrent.Future<Http.Response> answer : answers) {
            Http.Response r = answer.get();
            if (r.status() == 200) {
                issued.add(r);
            } else {
                assertError(r, 400, "invalid_grant");
            }
        }
        assertThat(issued).as("answers with a new pair").hasSize(1);
        JsonNode pair = issued.getFirst().json();
        assertError(
                driver.token(Map.of(
                        "grant_type",
                        "refresh_token",
                        "refresh_token",
                        pair.get("refresh_token").asText(),
                        "client_id",
                        client)),
                400,
                "invalid_grant");
        assertThat(http.get("/agents", pair.get("access_token").asText()).status())
                .isEqualTo(401);
    }

    @Test
    void confidentialClientsAuthenticateWithBasicOrPost() {
        Http.Response reg = http.post("/mcp/register", null, "{\"redirect_uris\":[\"" + OAuthDriver.REDIRECT + "\"]}");
        String id = reg.json().get("client_id").asText();
        String secret = reg.json().get("client_secret").asText();
        String session = newSession();
        OAuthDriver.Pkce pkce = OAuthDriver.Pkce.fresh();
        String code = OAuthDriver.query(driver.authorize(session, OAuthDriver.request(id, pkce, "s")))
                .get("code");
        Map<String, String> form = Map.of(
                "grant_type",
                "authorization_code",
                "code",
                code,
                "redirect_uri",
                OAuthDriver.REDIRECT,
                "code_verifier",
                pkce.verifier());
        Http.Response noSecret = driver.token(Map.of(
                "grant_type",
                "authorization_code",
                "client_id",
                id,
                "code",
                code,
                "redirect_uri",
                OAuthDriver.REDIRECT,
                "code_verifier",
                pkce.verifier()));
        assertError(noSecret, 401, "invalid_client");
        Http.Response wrong = basic(id, "wdn_cls_wrong", form);
        assertError(wrong, 401, "invalid_client");
        assertThat(wrong.header("WWW-Authenticate").orElseThrow()).startsWith("Basic");
        Http.Response ok = basic(id, secret, form);
        assertThat(ok.status()).as(ok.body()).isEqualTo(200);

        // introspection (confidential client) and revocation
        String access = ok.json().get("access_token").asText();
        Http.Response active = basic(id, secret, Map.of("token", access), "/oauth/introspect");
        assertThat(active.json().get("active").asBoolean()).isTrue();
        assertThat(active.json().get("client_id").asText()).isEqualTo(id);
        assertThat(basic(id, secret, Map.of("token", "not-a-token"), "/oauth/revoke")
                        .status())
                .isEqualTo(200);
        assertThat(basic(id, secret, Map.of("token", access), "/oauth/revoke").status())
                .isEqualTo(200);
        assertThat(basic(id, secret, Map.of("token", access), "/oauth/introspect")
                        .json()
                        .toString())
                .isEqualTo("{\"active\":false}");
        assertThat(http.get("/agents", access).status()).isEqualTo(401);
    }

    @Test
    void signingOutEndsTheTokensOfThatSession() {
        String session = newSession();
        String client = driver.registerPublicClient();
        String access = tokensFor(session, client, Map.of()).get("access_token").asText();
        assertThat(http.get("/agents", access).status()).isEqualTo(200);
        assertThat(http.post("/auth/sign-out", session).status()).isEqualTo(204);
        assertThat(http.get("/agents", access).status()).isEqualTo(401);
        Http.Response introspect =
                driver.postForm("/oauth/introspect", Map.of("client_id", client, "token", access), null);
        assertThat(introspect.json().toString()).isEqualTo("{\"active\":false}");
    }

    @Test
    void rememberedConsentSkipsTheConsentPageForConfidentialClients() {
        String session = newSession();
        // A confidential client: its code is worth nothing without its secret (public clients always ask again,
        // SecurityReviewIT finding 7).
        String client = http.post("/mcp/register", null, "{\"redirect_uris\":[\"" + OAuthDriver.REDIRECT + "\"]}")
                .json()
                .get("client_id")
                .asText();
        for (String scope : List.of("agents:read", "audit:read")) {
            Map<String, String> request = OAuthDriver.request(client, OAuthDriver.Pkce.fresh(), "st");
            request.put("scope", scope);
            assertThat(OAuthDriver.query(driver.authorize(session, request))).containsKey("code");
        }
        // the two consents add up: asking for both again needs no page
        Http.Response again = driver.getWithSession(
                OAuthDriver.authorizePath(OAuthDriver.request(client, OAuthDriver.Pkce.fresh(), "s"))
                        .replace("&state=s", "&state=s&scope=audit%3Aread%20agents%3Aread"),
                session);
        assertThat(again.status()).isEqualTo(302);
        assertThat(again.header("Location").orElseThrow()).startsWith(OAuthDriver.REDIRECT + "?code=");
    }

    @Test
    void browserClientsGetCorsOnTheTokenEndpoint() {
        Http.Response preflight = http.send(http.builder("/mcp/token", null)
                .header("Origin", "https://app.example")
                .header("Access-Control-Request-Method", "POST")
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody()));
        assertThat(preflight.status()).isEqualTo(204);
        assertThat(preflight.header("Access-Control-Allow-Origin")).contains("*");
        assertThat(preflight.header("Access-Control-Allow-Headers").orElseThrow())
                .contains("MCP-Protocol-Version");
        assertThat(http.get("/.well-known/oauth-authorization-server", null)
                        .header("Access-Control-Expose-Headers")
                        .orElseThrow())
                .contains("WWW-Authenticate");
        assertThat(http.get("/observe/health", null).header("Access-Control-Allow-Origin"))
                .isEmpty();
    }

    private static Http.Response basic(String id, String secret, Map<String, String> form) {
        return basic(id, secret, form, "/mcp/token");
    }

    private static Http.Response basic(String id, String secret, Map<String, String> form, String path) {
        String credential = Base64.getEncoder().encodeToString((id + ":" + secret).getBytes(StandardCharsets.UTF_8));
        return http.send(http.builder(path, null)
                .header("Authorization", "Basic " + credential)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(OAuthDriver.encode(form))));
    }

    private static void assertError(Http.Response r, int status, String error) {
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        assertThat(r.json().get("error").asText()).as(r.body()).isEqualTo(error);
        assertThat(r.header("Content-Type").orElseThrow()).startsWith("application/json");
    }
}
