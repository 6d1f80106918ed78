package dev.warden.api.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.api.users.UsersConfig;
import dev.warden.api.webhooks.WebhooksConfig;
import dev.warden.pipeline.contract.Json;
import dev.warden.testing.Http;
import dev.warden.testing.SseClient;
import dev.warden.testing.TestPlatform;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The hostile-input suite (docs/errors.md, "What the edge refuses"): every JSON field of every endpoint, and
 * every query and path value, is replaced in turn by values built to break parsers, databases and
 * spreadsheets (NUL, lone surrogates, invalid UTF-8, {@code 1e400}, {@code -0}, huge integers, deep nesting,
 * long strings, duplicate keys, years beyond 9999), and whole bodies are sent with broken content types. No
 * answer may be a 5xx, and a refused request may change nothing in the database. Afterwards a canary proves
 * that the audit log and the event stream still flow: a fresh decision reaches {@code GET /audit} and a fresh
 * event reaches SSE replay within seconds, and every decision answered during the run is in the audit log.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HostileInputIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b -> b.users(
                    UsersConfig.builder().argon2(1024, 1, 1).build())
            .rateLimit(RateLimitConfig.builder()
                    .endpoint(AuthEndpoint.OAUTH_AUTHORIZE, 100_000, 60)
                    .endpoint(AuthEndpoint.OAUTH_INTROSPECT, 100_000, 60)
                    .endpoint(AuthEndpoint.OAUTH_REVOKE, 100_000, 60)
                    .endpoint(AuthEndpoint.SIGN_IN, 100_000, 60)
                    .endpoint(AuthEndpoint.SIGN_UP, 100_000, 60)
                    .endpoint(AuthEndpoint.OAUTH_TOKEN, 100_000, 60)
                    .endpoint(AuthEndpoint.REGISTRATION, 100_000, 60)
                    .endpoint(AuthEndpoint.DEVICE_AUTHORIZATION, 100_000, 60)
                    .endpoint(AuthEndpoint.BACKCHANNEL_AUTHENTICATION, 100_000, 60)
                    .endpoint(AuthEndpoint.DEVICE_VERIFY, 100_000, 60)
                    .build())
            // Shared Signals push endpoints on 127.0.0.1 (nobody listens: pushes retry in the background, harmlessly)
            .webhooks(WebhooksConfig.builder().allowPrivateTargets(true).build())
            .auditSinks(List.of(dev.warden.sinks.external.AuditSinkSpec.builder(
                            dev.warden.sinks.external.AuditSinkSpec.Type.SPLUNK_HEC,
                            java.net.URI.create("http://127.0.0.1:9"))
                    .secret("t")
                    .option("name", "hostile")
                    .build())));

    /** Values as raw JSON text, each built to break something different. */
    static final Map<String, String> HOSTILE_JSON = hostileJson();

    /** Query and path values, already percent-encoded. */
    static final List<String> HOSTILE_QUERY = List.of(
            "%00",
            "a%00b",
            "%ED%A0%80",
            "%FF%FE",
            "%C0%80",
            "%2B999999999-12-31T23:59:59Z",
            "-999999999-01-01T00:00:00Z",
            "0000-01-01T00:00:00Z",
            "1e400",
            "99999999999999999999",
            "-1",
            "-0",
            "%0D%0ASet-Cookie:%20x=1",
            "%3D1%2B2",
            "x".repeat(8_000),
            "%E2%80%AE",
            "..%2F..%2Fetc",
            "%25",
            "%2C%2C%2C");

    static Http http;
    static String admin;
    static String alice;
    static String agentId;
    static String agentToken;
    static String otherAgentId;
    static String session;
    static String organization;
    static String memberId;
    static String issuer;
    static String receiverToken;
    static String stream;
    static final Set<String> answeredAuditIds = ConcurrentHashMap.newKeySet();
    static final List<String> failures = new ArrayList<>();
    static int requests;

    @org.junit.jupiter.api.BeforeEach
    void freshFailures() {
        failures.clear();
    }

    @BeforeAll
    static void fixtures() {
        http = warden.http();
        admin = warden.adminToken();
        alice = http.post("/auth/tokens", admin, "{\"name\":\"t\",\"userId\":\"alice\"}")
                .json()
                .get("token")
                .asText();
        JsonNode agent = http.post("/agents", alice, agentBody().toString()).json();
        agentId = agent.get("id").asText();
        agentToken = agent.get("token").asText();
        otherAgentId = http.post("/agents", alice, agentBody().toString())
                .json()
                .get("id")
                .asText();
        Http.Response signUp =
                http.post("/auth/sign-up", null, "{\"username\":\"hostile\",\"password\":\"a long passphrase\"}");
        assertThat(signUp.status()).as(signUp.body()).isEqualTo(201);
        session = signUp.json().get("token").asText();
        organization = http.post("/admin/v1/organizations", session, "{\"name\":\"hostile org\"}")
                .json()
                .get("id")
                .asText();
        memberId = http.post(
                        "/auth/sign-up",
                        null,
                        "{\"username\":\"hostile_member\",\"password\":\"a long " + "passphrase\"}")
                .json()
                .at("/user/id")
                .asText();
        assertThat(http.post(
                                "/admin/v1/organizations/" + organization + "/members",
                                session,
                                "{\"userId\":\"" + memberId + "\",\"role\":\"member\"}")
                        .status())
                .isEqualTo(201);
        // A Shared Signals receiver of Alice's (client credentials) and its poll stream
        issuer = http.baseUri().toString().replaceAll("/$", "");
        JsonNode receiver = http.post("/agents", alice, """
                        {"ownerId":"alice","name":"receiver","type":"service",
                         "permissions":[{"resource":"ssf","actions":["read","write"]}]}""").json();
        String receiverId = receiver.get("id").asText();
        assertThat(http.post("/agents/" + receiverId + "/oauth-client", alice).status())
                .isEqualTo(201);
        String basic = java.util.Base64.getEncoder()
                .encodeToString((receiverId + ":" + receiver.get("token").asText()).getBytes(StandardCharsets.UTF_8));
        Http.Response token = http.send(http.builder("/oauth/token", null)
                .header("Authorization", "Basic " + basic)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(
                        "grant_type=client_credentials&scope=ssf%3Aread+ssf%3Awrite")));
        assertThat(token.status()).as(token.body()).isEqualTo(200);
        receiverToken = token.json().get("access_token").asText();
        Http.Response created =
                http.post("/ssf/streams", receiverToken, "{\"delivery\":{\"method\":\"urn:ietf:rfc:8936\"}}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        stream = created.json().get("stream_id").asText();
    }

    @Test
    @Order(1)
    void everyHostileValueInEveryJsonFieldIsRefusedOrAcceptedButNeverA5xxNorAPartialWrite() throws Exception {
        for (Endpoint endpoint : endpoints()) {
            for (String path : leafPaths(endpoint.body(), "")) {
                for (Map.Entry<String, String> value : HOSTILE_JSON.entrySet()) {
                    String body = substitute(endpoint.body(), path, value.getValue());
                    send(
                            endpoint,
                            body.getBytes(StandardCharsets.UTF_8),
                            "application/json",
                            endpoint + " " + path + "=" + value.getKey());
                }
            }
        }
        assertThat(failures).as("requests answered badly (of %d)", requests).isEmpty();
    }

    @Test
    @Order(2)
    void brokenBodiesAndContentTypesAreA4xxOnEveryJsonEndpoint() throws Exception {
        List<String> contentTypes = List.of(
                "application/json;;;==;",
                "application/json; charset=",
                ";",
                "text/plain",
                "application/",
                "application/json; q=\"unterminated",
                "*/*",
                "application/json\u0000");
        for (Endpoint endpoint : endpoints()) {
            byte[] valid = endpoint.body().toString().getBytes(StandardCharsets.UTF_8);
            for (String type : contentTypes) {
                send(endpoint, valid, type, endpoint + " Content-Type " + type);
            }
            send(endpoint, invalidUtf8(endpoint.body()), "application/json", endpoint + " invalid UTF-8");
            send(endpoint, nested(200).getBytes(StandardCharsets.UTF_8), "application/json", endpoint + " deep body");
            send(endpoint, duplicateKey(endpoint.body()), "application/json", endpoint + " duplicate key");
            send(endpoint, "[]".getBytes(StandardCharsets.UTF_8), "application/json", endpoint + " array body");
            send(endpoint, "{".getBytes(StandardCharsets.UTF_8), "application/json", endpoint + " truncated");
        }
        assertThat(failures).as("requests answered badly (of %d)", requests).isEmpty();
    }

    @Test
    @Order(3)
    void everyHostileQueryAndPathValueIsNeverA5xx() throws Exception {
        List<String> templates = List.of(
                "/agents?status=%s",
                "/agents?type=%s",
                "/agents?tenantId=%s",
                "/agents/%s",
                "/agents/%s/rotate",
                "/audit?agentId=%s",
                "/audit?userId=%s",
                "/audit?since=%s",
                "/audit?until=%s",
                "/audit?actions=%s",
                "/audit?result=%s",
                "/audit?limit=%s",
                "/audit?offset=%s",
                "/audit/export?format=%s",
                "/audit/export?format=csv&since=%s",
                "/delegations?fromAgent=%s",
                "/delegations?toAgent=%s",
                "/delegations/%s",
                "/approvals/%s",
                "/approvals/apr_x?wait=%s",
                "/approvals?status=%s",
                "/approvals?limit=%s",
                "/webhooks/%s",
                "/auth/tokens/%s",
                "/admin/v1/dead-letters?sink=%s",
                "/admin/v1/dead-letters?limit=%s",
                "/admin/v1/sinks/%s/pause",
                "/ssf/streams?stream_id=%s",
                "/ssf/status?stream_id=%s",
                "/ssf/poll/%s",
                "/mcp/authorize?client_id=%s",
                "/mcp/authorize?response_type=code&client_id=c&redirect_uri=%s",
                "/oauth/login?return_to=%s",
                "/oauth/consent?client_id=%s",
                "/.well-known/oauth-protected-resource/%s",
                "/.well-known/oauth-authorization-server/%s",
                "/auth/device?user_code=%s",
                "/agents/%s/oauth-client",
                "/admin/v1/organizations/%s",
                "/admin/v1/organizations/%s/agents",
                "/admin/v1/organizations/" + organization + "/agents?cursor=%s",
                "/admin/v1/organizations/" + organization + "/agents?limit=%s",
                "/admin/v1/organizations/" + organization + "/agents?status=%s",
                "/admin/v1/organizations/" + organization + "/agents/%s",
                "/admin/v1/organizations/" + organization + "/delegations?cursor=%s",
                "/admin/v1/organizations/" + organization + "/delegations/%s",
                "/admin/v1/organizations/" + organization + "/roles",
                "/account/agents?status=%s");
        for (String template : templates) {
            for (String value : HOSTILE_QUERY) {
                String path = template.formatted(value);
                // The Shared Signals routes with a receiver's token instead of an agent's (which holds no ssf scope)
                for (String token : List.of(admin, alice, path.startsWith("/ssf/") ? receiverToken : agentToken)) {
                    Fingerprint before = Fingerprint.take();
                    String method = path.endsWith("/rotate") || path.endsWith("/pause") || path.startsWith("/ssf/poll/")
                            ? "POST"
                            : "GET";
                    int status = raw(method, path, token, null, null).status();
                    check(status, "GET".equals(method) || status >= 400 ? before : null, method + " " + path);
                }
            }
        }
        // Query strings of odd shape: a bare "&", a name without "=", an empty name, a repeated name.
        for (String path : List.of(
                "/agents",
                "/audit",
                "/audit/export",
                "/delegations",
                "/mcp/authorize",
                "/oauth/authorize",
                "/oauth/login",
                "/oauth/consent",
                "/auth/device",
                "/admin/v1/dead-letters",
                "/admin/v1/organizations/" + organization + "/agents",
                "/ssf/streams",
                "/ssf/status")) {
            for (String query : List.of(
                    "?&",
                    "?&&",
                    "?client_id",
                    "?=x",
                    "?limit",
                    "?a=1&a=2",
                    "?%00",
                    "?&=&",
                    "?stream_id",
                    "?stream_id=")) {
                for (String token : List.of(admin, alice, receiverToken)) {
                    int status = raw("GET", path + query, token, null, null).status();
                    check(status, null, "GET " + path + query);
                }
            }
        }
        for (String value : HOSTILE_QUERY) {
            for (String query : List.of("since=" + value, "types=" + value, "token=" + value)) {
                int status = sseStatus("/events/stream?" + query, admin);
                check(status, null, "SSE " + query);
            }
        }
        assertThat(failures).as("requests answered badly (of %d)", requests).isEmpty();
    }

    @Test
    @Order(3)
    void everyHostileValueInTheConsoleIsNeverA5xxNorAWriteNorLiveMarkup() throws Exception {
        String cookie = "warden_session=" + session;
        Map<Integer, Integer> statuses = new java.util.TreeMap<>();
        List<String> values = new ArrayList<>(HOSTILE_QUERY);
        values.add("%3Cscript%3Ealert(1)%3C%2Fscript%3E");
        values.add("%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E");
        List<String> pages = List.of(
                "/console/agents/%s",
                "/console/agents/%s/suspend",
                "/console/agents/" + agentId + "/%s",
                "/console/audit?agentId=%s",
                "/console/audit?actions=%s",
                "/console/audit?result=%s",
                "/console/audit?since=%s",
                "/console/audit?until=%s",
                "/console/audit?limit=%s",
                "/console/audit?offset=%s",
                "/console/audit/%s",
                "/console/delegations/%s/revoke",
                "/console/webhooks/%s/delete",
                "/console/webhooks/%s",
                "/console/assets/%s",
                "/console/feed?%s",
                "/console/dashboard?%s",
                "/console/health?%s",
                "/console/organizations/%s",
                "/console/organizations/%s/agents",
                "/console/organizations?%s");
        for (String template : pages) {
            for (String value : values) {
                String path = template.formatted(value);
                Fingerprint before = Fingerprint.take();
                Answer answer = raw("GET", path, null, null, null, Map.of("Cookie", cookie));
                check(answer.status(), before, "GET " + path);
                statuses.merge(answer.status(), 1, Integer::sum);
                if (answer.body().contains("<script>alert") || answer.body().contains("<img src=x")) {
                    failures.add("GET " + path + ": a value came back as markup");
                }
            }
        }
        assertThat(statuses.keySet())
                .as("the session reaches the pages: some shown, some refused, none sent to sign in")
                .contains(200, 404)
                .doesNotContain(302);
        // The forms: a hostile CSRF value is refused; a valid one with a hostile path value is a 4xx; neither writes.
        Http.Response feed = http.send(
                http.builder("/console/feed", null).header("Cookie", cookie).GET());
        java.util.regex.Matcher csrfCookie = dev.warden.api.oauth.OAuthDriver.CSRF_COOKIE.matcher(
                feed.header("Set-Cookie").orElse(""));
        assertThat(csrfCookie.find()).as(feed.body()).isTrue();
        String csrf = dev.warden.api.oauth.OAuthDriver.hiddenFields(feed.body()).get("csrf");
        List<String> forms = List.of(
                "/console/agents/%s/suspend",
                "/console/agents/%s/revoke",
                "/console/agents/" + agentId + "/%s",
                "/console/delegations/%s/revoke",
                "/console/approvals/%s/approve",
                "/console/approvals/apr_x/%s");
        for (String template : forms) {
            for (String value : values) {
                String path = template.formatted(value);
                for (String body : List.of("csrf=" + value, "csrf=" + csrf, "csrf=" + csrf + "&csrf=" + value)) {
                    Fingerprint before = Fingerprint.take();
                    Answer answer = formPost(path, body, cookie + "; " + csrfCookie.group(1));
                    if (answer == null) {
                        continue;
                    }
                    check(answer.status(), before, "POST " + path + " " + body);
                    if (answer.status() < 300) {
                        failures.add("POST " + path + " " + body + ": accepted with " + answer.status());
                    }
                }
            }
        }
        // The webhook form: a hostile URL, or a good URL with hostile event types, is refused and writes nothing.
        for (String value : values) {
            for (String fields : List.of("url=" + value, "url=http%3A%2F%2F127.0.0.1%3A9%2Fx&eventTypes=x" + value)) {
                Fingerprint before = Fingerprint.take();
                Answer answer = formPost(
                        "/console/webhooks", "csrf=" + csrf + "&" + fields, cookie + "; " + csrfCookie.group(1));
                if (answer != null) {
                    check(answer.status(), before, "POST /console/webhooks " + fields);
                    if (answer.status() < 400) {
                        failures.add("POST /console/webhooks " + fields + ": accepted with " + answer.status());
                    }
                }
            }
        }
        for (String value : values) {
            Fingerprint before = Fingerprint.take();
            Answer answer = formPost("/console/sign-out", "csrf=" + value, cookie + "; " + csrfCookie.group(1));
            if (answer != null) {
                check(answer.status(), before, "POST /console/sign-out csrf=" + value);
            }
        }
        assertThat(failures).as("requests answered badly (of %d)", requests).isEmpty();
    }

    @Test
    @Order(3)
    void everyHostileFormValueOnTheOAuthEndpointsIsNeverA5xxNorAWrite() throws Exception {
        Map<String, List<String>> forms = Map.of(
                "/mcp/token",
                        List.of(
                                "grant_type",
                                "code",
                                "redirect_uri",
                                "client_id",
                                "code_verifier",
                                "refresh_token",
                                "scope",
                                "resource"),
                "/oauth/revoke", List.of("token", "client_id", "token_type_hint"),
                "/oauth/introspect", List.of("token", "client_id"),
                "/oauth/login", List.of("username", "password", "csrf", "return_to"),
                "/oauth/consent", List.of("client_id", "redirect_uri", "decision", "csrf"),
                "/oauth/totp", List.of("challenge", "code", "recovery_code", "csrf", "return_to"),
                "/oauth/passkey", List.of("ceremony", "credential", "csrf", "return_to"),
                "/auth/password-reset/complete", List.of("token", "newPassword"),
                "/auth/magic-link/verify", List.of("token"));
        // The grants for agents, as a registered client that may use them (so the grant itself reads the fields).
        String client = http.post(
                        "/mcp/register",
                        null,
                        "{\"redirect_uris\":[\"http://127.0.0.1:9/cb\"],"
                                + "\"grant_types\":[\"authorization_code\",\"urn:ietf:params:oauth:grant-type:token-exchange\","
                                + "\"urn:ietf:params:oauth:grant-type:device_code\"],\"token_endpoint_auth_method\":\"none\"}")
                .json()
                .get("client_id")
                .asText();
        Map<String, String> fixed = Map.of(
                "/oauth/token?exchange",
                        "grant_type=urn:ietf:params:oauth:grant-type:token-exchange&client_id=" + client,
                "/oauth/token?device", "grant_type=urn:ietf:params:oauth:grant-type:device_code&client_id=" + client,
                "/oauth/token?credentials", "grant_type=client_credentials&client_id=" + agentId,
                "/oauth/token?ciba", "grant_type=urn:openid:params:grant-type:ciba&client_id=" + agentId,
                "/oauth/bc-authorize", "client_id=" + agentId,
                "/auth/device/code", "client_id=" + client);
        forms = new java.util.LinkedHashMap<>(forms);
        forms.put(
                "/oauth/token?exchange",
                List.of(
                        "subject_token",
                        "subject_token_type",
                        "actor_token",
                        "actor_token_type",
                        "resource",
                        "audience",
                        "scope",
                        "requested_token_type"));
        forms.put("/oauth/token?device", List.of("device_code"));
        forms.put("/oauth/token?credentials", List.of("client_secret", "scope", "resource"));
        forms.put("/auth/device/code", List.of("scope", "resource"));
        forms.put("/oauth/token?ciba", List.of("client_secret", "auth_req_id"));
        forms.put(
                "/oauth/bc-authorize",
                List.of("client_secret", "scope", "login_hint", "binding_message", "requested_expiry", "resource"));
        forms.put("/auth/device/verify", List.of("user_code", "decision", "csrf"));
        for (Map.Entry<String, List<String>> form : forms.entrySet()) {
            for (String field : form.getValue()) {
                for (String value : HOSTILE_QUERY) {
                    StringBuilder body = new StringBuilder(fixed.getOrDefault(form.getKey(), ""));
                    for (String other : form.getValue()) {
                        body.append(body.isEmpty() ? "" : "&")
                                .append(other)
                                .append('=')
                                .append(other.equals(field) ? value : "x");
                    }
                    Fingerprint before = Fingerprint.take();
                    int status = raw(
                                    "POST",
                                    form.getKey().replaceAll("\\?.*", ""),
                                    null,
                                    body.toString().getBytes(StandardCharsets.UTF_8),
                                    "application/x-www-form-urlencoded")
                            .status();
                    check(status, status >= 400 ? before : null, "POST " + form.getKey() + " " + field + "=" + value);
                }
            }
        }
        assertThat(failures).as("requests answered badly (of %d)", requests).isEmpty();
    }

    /** Credential values as raw header bytes: NUL, invalid and surrogate UTF-8, huge numbers, long and odd text. */
    static final List<byte[]> HOSTILE_CREDENTIALS = hostileCredentials();

    static List<byte[]> hostileCredentials() {
        List<byte[]> values = new ArrayList<>();
        for (String text : List.of(
                "\u0000",
                "a\u0000b",
                "wdn_ses_\u0000",
                "wdn_agt_\u0000x",
                "wdn_adm_\u0000",
                "eyJ\u0000.e30.x",
                "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.",
                "1e400",
                "99999999999999999999",
                "-0",
                "%00",
                "%",
                "\u202E",
                "x".repeat(8_000),
                ":",
                "a:b:c")) {
            values.add(text.getBytes(StandardCharsets.UTF_8));
        }
        values.add(new byte[] {'w', 'd', 'n', '_', (byte) 0xED, (byte) 0xA0, (byte) 0x80}); // a lone surrogate
        values.add(new byte[] {(byte) 0xFF, (byte) 0xFE, 'x'}); // not UTF-8 at all
        values.add(new byte[] {(byte) 0xC0, (byte) 0x80}); // overlong NUL
        return values;
    }

    /**
     * Every credential carrier (security review, finding 5): HTTP Basic on the endpoints that authenticate
     * clients (the id and the secret, raw and percent-encoded), the bearer token of the Authorization header, the
     * session cookie (on a REST route, /mcp, SSE and the OAuth pages), query tokens, and DELETE on path segments.
     * Headers go out on a raw socket, byte for byte, so that nothing the JDK client would refuse is skipped. No
     * answer may be a 5xx, and a refused request changes nothing.
     */
    @Test
    @Order(3)
    void everyHostileCredentialInEveryCarrierIsNeverA5xx() throws Exception {
        // No hostile credential authenticates and no hostile id names anything, so nothing may change in the
        // database across each whole block (one fingerprint a block, not one a request: they are ~1,300).
        Fingerprint before = Fingerprint.take();
        for (String path : List.of(
                "/oauth/token",
                "/mcp/token",
                "/oauth/introspect",
                "/oauth/revoke",
                "/auth/device/code",
                "/oauth/bc-authorize")) {
            for (byte[] value : HOSTILE_CREDENTIALS) {
                String text = new String(value, StandardCharsets.UTF_8);
                String encoded = java.net.URLEncoder.encode(text, StandardCharsets.UTF_8);
                for (String pair :
                        List.of(text + ":secret", "client:" + text, encoded + ":secret", "client:" + encoded, text)) {
                    byte[] credential = java.util.Base64.getEncoder().encode(pair.getBytes(StandardCharsets.UTF_8));
                    byte[] header = concat("Authorization: Basic ".getBytes(StandardCharsets.US_ASCII), credential);
                    int status = rawSocket("POST", path, header, "grant_type=client_credentials&token=x");
                    check(status, null, "POST " + path + " Basic " + pair);
                }
                int status = rawSocket(
                        "POST",
                        path,
                        concat("Authorization: Basic ".getBytes(StandardCharsets.US_ASCII), value),
                        "grant_type=client_credentials&token=x");
                check(status, null, "POST " + path + " Basic (not base64) " + text);
            }
        }
        List<String> routes = List.of(
                "GET /agents",
                "GET /ssf/streams",
                "POST /agents/" + agentId + "/rotate",
                "DELETE /webhooks/x",
                "POST /mcp",
                "GET /events/stream",
                "GET /auth/tokens/current",
                "POST /auth/sign-out",
                "GET /mcp/authorize?client_id=x",
                "GET /oauth/consent?client_id=x",
                "GET /auth/device");
        for (String route : routes) {
            String method = route.substring(0, route.indexOf(' '));
            String path = route.substring(route.indexOf(' ') + 1);
            for (byte[] value : HOSTILE_CREDENTIALS) {
                for (String carrier : List.of(
                        "Authorization: Bearer ",
                        "Cookie: warden_session=",
                        "Cookie: warden_session=wdn_ses_x; warden_csrf=")) {
                    int status = rawSocket(
                            method,
                            path,
                            concat(carrier.getBytes(StandardCharsets.US_ASCII), value),
                            method.equals("GET") ? null : "{}");
                    check(status, null, route + " " + carrier + new String(value, StandardCharsets.UTF_8));
                }
            }
        }
        for (String value : HOSTILE_QUERY) {
            for (String query : List.of("/events/stream?token=%s", "/mcp/authorize?client_id=%s&access_token=%s")) {
                int status =
                        raw("GET", query.replace("%s", value), null, null, null).status();
                check(status, null, "GET " + query.replace("%s", value));
            }
            for (String template : List.of(
                    "/auth/tokens/%s",
                    "/agents/%s",
                    "/webhooks/%s",
                    "/delegations/%s",
                    "/agents/%s/oauth-client",
                    "/ssf/streams?stream_id=%s",
                    "/admin/v1/organizations/" + organization + "/members/%s",
                    "/admin/v1/organizations/" + organization + "/roles/%s")) {
                int status = raw("DELETE", template.formatted(value), admin, null, null)
                        .status();
                check(status, null, "DELETE " + template.formatted(value));
                if (status < 400) {
                    failures.add("DELETE " + template.formatted(value) + ": answered " + status);
                }
            }
        }
        check(200, before, "every hostile credential and id, as one block");
        assertThat(failures).as("requests answered badly (of %d)", requests).isEmpty();
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /**
     * Sends one HTTP/1.1 request on a fresh socket, with {@code header} as raw bytes; the answer's status, or 0
     * when the server closed the connection without one (a protocol-level refusal, not a 5xx).
     */
    static int rawSocket(String method, String path, byte[] header, String body) throws Exception {
        URI base = http.baseUri();
        try (java.net.Socket socket = new java.net.Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout(20_000);
            java.io.ByteArrayOutputStream request = new java.io.ByteArrayOutputStream();
            byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
            request.write((method + " " + path + " HTTP/1.1\r\nHost: " + base.getHost() + ":" + base.getPort()
                            + "\r\nConnection: close\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            request.write(header);
            request.write(("\r\n"
                            + (body == null
                                    ? ""
                                    : "Content-Type: "
                                            + (body.startsWith("{")
                                                    ? "application/json"
                                                    : "application/x-www-form-urlencoded")
                                            + "\r\nContent-Length: "
                                            + content.length + "\r\n")
                            + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            request.write(content);
            socket.getOutputStream().write(request.toByteArray());
            socket.getOutputStream().flush();
            byte[] start = socket.getInputStream().readNBytes(12);
            String line = new String(start, StandardCharsets.US_ASCII);
            return line.startsWith("HTTP/1.1 ") && line.length() >= 12 ? Integer.parseInt(line.substring(9, 12)) : 0;
        } catch (java.net.SocketException e) {
            return 0; // reset by the server: refused at the protocol level
        }
    }

    @Test
    @Order(4)
    void afterTheRunDecisionsStillReachTheAuditLogAndEventsStillReachReplay() throws Exception {
        java.time.Instant start = java.time.Instant.now().minusSeconds(1);
        Http.Response decision = http.post(
                "/authorize",
                agentToken,
                "{\"agentId\":\"" + agentId + "\",\"action\":\"read\",\"resource\":\"mcp:github:canary\"}");
        assertThat(decision.status()).isEqualTo(200);
        String canary = decision.json().get("auditId").asText();
        answeredAuditIds.add(canary);
        String created = http.post("/agents", alice, agentBody().toString())
                .json()
                .get("id")
                .asText();

        Set<String> inLog = new java.util.HashSet<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!inLog.containsAll(answeredAuditIds) && System.nanoTime() < deadline) {
            for (JsonNode e : http.get("/audit?limit=1000", admin).json()) {
                inLog.add(e.get("id").asText());
            }
            Thread.sleep(100);
        }
        Set<String> deadLettered = new java.util.HashSet<>();
        for (JsonNode letter :
                http.get("/admin/v1/dead-letters?limit=1000", admin).json()) {
            deadLettered.add(letter.get("value").asText());
        }
        List<String> nowhere = answeredAuditIds.stream()
                .filter(id -> !inLog.contains(id))
                .filter(id -> deadLettered.stream().noneMatch(v -> v.contains(id)))
                .toList();
        assertThat(inLog).as("the canary decision").contains(canary);
        assertThat(nowhere)
                .as("answered decisions neither in the audit log nor dead-lettered")
                .isEmpty();

        try (SseClient sse = SseClient.connect(
                http.baseUri(),
                "/events/stream?types=agent.created&since=" + start,
                Map.of("Authorization", "Bearer " + admin))) {
            List<SseClient.Message> replayed = new ArrayList<>();
            long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (replayed.stream().noneMatch(m -> m.data().contains(created)) && System.nanoTime() < until) {
                SseClient.Message next = sse.next(Duration.ofSeconds(1));
                if (next != null && next.event() != null) {
                    replayed.add(next);
                }
            }
            assertThat(replayed)
                    .as("the canary agent.created in replay")
                    .anyMatch(m -> m.data().contains(created));
        }
    }

    // --- the endpoints and their valid bodies -------------------------------------------------------------

    /** A JSON endpoint, the token it is called with and a body it accepts. */
    record Endpoint(String method, String path, String token, ObjectNode body) {
        @Override
        public String toString() {
            return method + " " + path;
        }
    }

    static List<Endpoint> endpoints() {
        return List.of(
                new Endpoint("POST", "/agents", alice, agentBody()),
                new Endpoint("PATCH", "/agents/" + otherAgentId, alice, object("""
                        {"name":"n2","metadata":{"k":"v"},"expiresAt":"2099-01-01T00:00:00Z",
                         "budget":{"maxCostUsd":5,"period":"day"}}""")),
                new Endpoint("POST", "/authorize", agentToken, object("""
                        {"agentId":"%s","action":"read","resource":"mcp:github:x",
                         "arguments":{"q":"text","n":1,"list":[1,"a"],"nested":{"x":true}},
                         "context":{"ip":"10.0.0.1","userAgent":"curl/8"}}""".formatted(agentId))),
                new Endpoint("POST", "/access/v1/evaluations", agentToken, object("""
                        {"subject":{"type":"agent","id":"%s","properties":{"role":"x"}},"action":{"name":"read"},
                         "context":{"n":1},"options":{"evaluations_semantic":"execute_all"},
                         "evaluations":[{"resource":{"type":"mcp","id":"github:x","properties":{"s":"a"}}}]}""".formatted(agentId))),
                new Endpoint("POST", "/access/v1/search/subject", agentToken, object("""
                        {"subject":{"type":"agent","properties":{"role":"x"}},"action":{"name":"read"},
                         "resource":{"type":"mcp","id":"github:x"},"context":{"n":1},"page":{"limit":5}}""")),
                new Endpoint("POST", "/access/v1/search/resource", agentToken, object("""
                        {"subject":{"type":"agent","id":"%s"},"action":{"name":"read"},"resource":{"type":"mcp"},
                         "page":{"limit":5}}""".formatted(agentId))),
                new Endpoint("POST", "/access/v1/search/action", agentToken, object("""
                        {"subject":{"type":"agent","id":"%s"},"resource":{"type":"mcp","id":"github:x"}}""".formatted(agentId))),
                new Endpoint("POST", "/admin/v1/sinks/hostile/replay", admin, object("""
                        {"from":"2026-01-01T00:00:00Z"}""")),
                new Endpoint("POST", "/ssf/streams", receiverToken, object("""
                        {"delivery":{"method":"urn:ietf:rfc:8935","endpoint_url":"http://127.0.0.1:9/ssf",
                                     "authorization_header":"Bearer receiver-secret"},
                         "events_requested":["https://schemas.openid.net/secevent/caep/event-type/session-revoked"],
                         "description":"d"}""")),
                new Endpoint("PATCH", "/ssf/streams", receiverToken, object("""
                        {"stream_id":"%s","delivery":{"method":"urn:ietf:rfc:8936","endpoint_url":"%s/ssf/poll/%s"},
                         "events_requested":["https://schemas.openid.net/secevent/caep/event-type/credential-change"],
                         "description":"d2"}""".formatted(stream, issuer, stream))),
                new Endpoint("PUT", "/ssf/streams", receiverToken, object("""
                        {"stream_id":"%s","iss":"%s","aud":"x","events_supported":[],"events_delivered":[],
                         "min_verification_interval":15,"inactivity_timeout":0,
                         "delivery":{"method":"urn:ietf:rfc:8936"},
                         "events_requested":["https://schemas.openid.net/secevent/caep/event-type/session-revoked"],
                         "description":"d3"}""".formatted(stream, issuer))),
                new Endpoint("POST", "/ssf/status", receiverToken, object("""
                        {"stream_id":"%s","status":"enabled","reason":"r"}""".formatted(stream))),
                new Endpoint(
                        "POST", "/ssf/subjects/remove", receiverToken, object("""
                        {"stream_id":"%s","subject":{"format":"opaque","id":"%s"}}""".formatted(stream, otherAgentId))),
                new Endpoint("POST", "/ssf/subjects/add", receiverToken, object("""
                        {"stream_id":"%s","subject":{"format":"iss_sub","iss":"%s","sub":"%s"},"verified":true}""".formatted(
                                stream, issuer, otherAgentId))),
                new Endpoint("POST", "/ssf/verify", receiverToken, object("""
                        {"stream_id":"%s","state":"s"}""".formatted(stream))),
                new Endpoint("POST", "/ssf/poll/" + stream, receiverToken, object("""
                        {"maxEvents":10,"returnImmediately":true,"ack":["jti-1"],
                         "setErrs":{"jti-2":{"err":"invalid_key","description":"d"}}}""")),
                new Endpoint("POST", "/agents/" + agentId + "/costs", agentToken, object("""
                        {"tool":"gpt","inputTokens":10,"outputTokens":5,"costUsd":0.25}""")),
                new Endpoint("POST", "/delegations", alice, object("""
                        {"fromAgent":"%s","toAgent":"%s","maxDepth":2,"expiresAt":"2099-01-01T00:00:00Z",
                         "permissions":[{"resource":"mcp:github:*","actions":["read"],"constraints":{"maxCallsPerHour":5,
                          "when":"action == 'read'","allowedIps":["127.0.0.1"],
                          "timeWindows":[{"days":["sun"],"start":"22:00","end":"06:00","timeZone":"UTC"}]}}]}""".formatted(agentId, otherAgentId))),
                new Endpoint("POST", "/auth/tokens", admin, object("""
                        {"name":"laptop","userId":"bob","scopes":["agents:read"],"expiresAt":"2099-01-01T00:00:00Z"}""")),
                new Endpoint("POST", "/webhooks", alice, object("""
                        {"url":"https://hooks.example.com/w","eventTypes":["agent.created"],"description":"d"}""")),
                new Endpoint("POST", "/auth/sign-up", null, object("""
                        {"username":"someone","password":"a long passphrase","email":"a@example.com","displayName":"A"}""")),
                new Endpoint("POST", "/auth/sign-in", null, object("""
                        {"username":"hostile","password":"a long passphrase"}""")),
                new Endpoint("POST", "/auth/change-username", session, object("""
                        {"username":"hostile"}""")),
                new Endpoint("POST", "/mcp/register", null, object("""
                        {"client_name":"c","redirect_uris":["https://app.example/cb"],"scope":"agents:read",
                         "grant_types":["authorization_code"],"token_endpoint_auth_method":"none"}""")),
                new Endpoint("POST", "/admin/v1/organizations", session, object("""
                        {"name":"an organization"}""")),
                new Endpoint("PUT", "/admin/v1/active-organization", session, object("""
                        {"organizationId":"%s"}""".formatted(organization))),
                new Endpoint(
                        "POST", "/admin/v1/organizations/" + organization + "/members", session, object("""
                        {"userId":"%s","role":"member"}""".formatted(
                                        memberId))),
                new Endpoint(
                        "PATCH",
                        "/admin/v1/organizations/" + organization + "/members/" + memberId,
                        session,
                        object("""
                                {"role":"admin"}""")),
                new Endpoint("POST", "/admin/v1/organizations/" + organization + "/roles", session, object("""
                        {"name":"auditor","permissions":["agents:read","delegations:read"]}""")),
                new Endpoint("POST", "/mcp", session, object("""
                        {"jsonrpc":"2.0","id":1,"method":"tools/call",
                         "params":{"name":"query_audit","arguments":{"agentId":"a","limit":5,"since":"2020-01-01T00:00:00Z"}}}""")));
    }

    static ObjectNode agentBody() {
        return object("""
                {"ownerId":"alice","name":"n","type":"autonomous","tenantId":"acme","expiresAt":"2099-01-01T00:00:00Z",
                 "permissions":[{"resource":"mcp:github:*","actions":["read","write"],"constraints":{"maxCallsPerHour":1000,
                                 "when":"has(arguments.n) ? arguments.n <= 100 : true","allowedIps":["10.0.0.0/8","::1/128"],
                                 "timeWindows":[{"days":["mon","fri"],"start":"09:00","end":"17:00","timeZone":"Europe/Berlin"}],
                                 "validFrom":"2020-01-01T00:00:00Z","validUntil":"2099-01-01T00:00:00Z"}},
                                {"resource":"mcp:docs:*","actions":["read"],"constraints":{"requireApproval":{"approvers":"owner","validFor":"PT1H"}}}],
                 "metadata":{"team":"platform","n":1,"deep":{"list":[1,"x"]}},
                 "budget":{"maxCostUsd":25.5,"period":"month"}}""");
    }

    // --- hostile values ------------------------------------------------------------------------------------

    static Map<String, String> hostileJson() {
        Map<String, String> values = new LinkedHashMap<>();
        values.put("NUL", "\"a\\u0000b\"");
        values.put("lone high surrogate", "\"\\ud800\"");
        values.put("lone low surrogate", "\"x\\udc00y\"");
        values.put("high surrogate at end", "\"abc\\ud83d\"");
        values.put("1e400", "1e400");
        values.put("-1e400", "-1e400");
        values.put("1e-400", "1e-400");
        values.put("-0", "-0");
        values.put("-0.0", "-0.0");
        values.put("2^64+5", "18446744073709551621");
        values.put("-2^64", "-18446744073709551616");
        values.put("1e30", "1e30");
        values.put("65-digit number", "1" + "0".repeat(64));
        values.put("year +999999999", "\"+999999999-12-31T23:59:59Z\"");
        values.put("year -999999999", "\"-999999999-01-01T00:00:00Z\"");
        values.put("year 0", "\"0000-01-01T00:00:00Z\"");
        values.put("formula", "\"=HYPERLINK(\\\"http://x\\\")\"");
        values.put("long string", "\"" + "a".repeat(70_000) + "\"");
        values.put("deep array", nestedArray(40));
        values.put("deep object", nested(40));
        values.put("NUL key", "{\"a\\u0000\":1}");
        values.put("lone surrogate key", "{\"\\udfff\":1}");
        values.put("duplicate keys", "{\"k\":1,\"k\":2}");
        values.put("null", "null");
        values.put("true", "true");
        values.put("empty object", "{}");
        values.put("empty array", "[]");
        values.put("control chars", "\"\\u0001\\u001b[31m\\r\\n\"");
        values.put("RTL override", "\"\\u202egnp.exe\"");
        return values;
    }

    static String nested(int depth) {
        return "{\"a\":".repeat(depth) + "1" + "}".repeat(depth);
    }

    static String nestedArray(int depth) {
        return "[".repeat(depth) + "1" + "]".repeat(depth);
    }

    static byte[] invalidUtf8(ObjectNode body) {
        String text = body.toString();
        int quote = text.indexOf("\":\"") + 3; // inside the first string value
        byte[] head = text.substring(0, quote).getBytes(StandardCharsets.UTF_8);
        byte[] tail = text.substring(quote).getBytes(StandardCharsets.UTF_8);
        byte[] bad = {(byte) 0xC3, (byte) 0x28, (byte) 0xED, (byte) 0xA0, (byte) 0x80, (byte) 0xFF};
        byte[] out = new byte[head.length + bad.length + tail.length];
        System.arraycopy(head, 0, out, 0, head.length);
        System.arraycopy(bad, 0, out, head.length, bad.length);
        System.arraycopy(tail, 0, out, head.length + bad.length, tail.length);
        return out;
    }

    static byte[] duplicateKey(ObjectNode body) {
        String first = body.fieldNames().next();
        String text = body.toString();
        return ("{\"" + first + "\":" + body.get(first) + "," + text.substring(1)).getBytes(StandardCharsets.UTF_8);
    }

    // --- mutation ------------------------------------------------------------------------------------------

    private static final String MARK = "__hostile_value__";

    /** Every path to a value of {@code node}: {@code name}, {@code permissions[0].actions[1]}, ... */
    static List<String> leafPaths(JsonNode node, String prefix) {
        List<String> out = new ArrayList<>();
        if (!prefix.isEmpty()) {
            out.add(prefix);
        }
        if (node.isObject()) {
            node.fieldNames()
                    .forEachRemaining(f -> out.addAll(leafPaths(node.get(f), prefix.isEmpty() ? f : prefix + "." + f)));
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                out.addAll(leafPaths(node.get(i), prefix + "[" + i + "]"));
            }
        }
        return out;
    }

    /** {@code body} with the value at {@code path} replaced by the raw JSON {@code value}. */
    static String substitute(ObjectNode body, String path, String value) {
        ObjectNode copy = body.deepCopy();
        JsonNode parent = copy;
        String[] steps = path.replace("[", ".[").split("\\.");
        for (int i = 0; i < steps.length - 1; i++) {
            parent = step(parent, steps[i]);
        }
        String last = steps[steps.length - 1];
        if (last.startsWith("[")) {
            ((ArrayNode) parent).set(Integer.parseInt(last.substring(1, last.length() - 1)), MARK);
        } else {
            ((ObjectNode) parent).put(last, MARK);
        }
        return copy.toString().replace("\"" + MARK + "\"", value);
    }

    private static JsonNode step(JsonNode node, String step) {
        return step.startsWith("[") ? node.get(Integer.parseInt(step.substring(1, step.length() - 1))) : node.get(step);
    }

    static ObjectNode object(String json) {
        try {
            return (ObjectNode) Json.mapper().readTree(json);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException(e);
        }
    }

    // --- sending and judging -------------------------------------------------------------------------------

    private static final HttpClient CLIENT =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    record Answer(int status, String contentType, String body) {}

    static void send(Endpoint endpoint, byte[] body, String contentType, String what) throws Exception {
        Fingerprint before = Fingerprint.take();
        Answer answer = raw(endpoint.method(), endpoint.path(), endpoint.token(), body, contentType);
        if (answer.status() == 200 && endpoint.path().equals("/authorize")) {
            JsonNode decision = Json.mapper().readTree(answer.body());
            answeredAuditIds.add(decision.get("auditId").asText());
        }
        // A refused sign-in records the failed attempt (lockout counter, auth.failed): by design, not a partial write.
        boolean recordsFailures = endpoint.path().equals("/auth/sign-in");
        check(answer.status(), answer.status() >= 400 && !recordsFailures ? before : null, what);
        // A header with a NUL is refused by the HTTP layer itself (a bare 400, before any route): protocol level.
        boolean protocolLevel = contentType != null && contentType.indexOf('\u0000') >= 0;
        // OAuth endpoints answer RFC 6749/7591 JSON errors, /mcp JSON-RPC errors; the REST API problem+json.
        String errorType = endpoint.path().startsWith("/mcp") ? "application/json" : "application/problem+json";
        if (answer.status() >= 400
                && answer.status() != 429
                && !protocolLevel
                && !errorType.equals(answer.contentType())
                && !(endpoint.path().startsWith("/auth/sign-in") && answer.status() == 401)) {
            failures.add(what + ": " + answer.status() + " without a " + errorType + " error body ("
                    + answer.contentType() + ")");
        }
    }

    /** Records a 5xx, and a refused request that changed the database. */
    static void check(int status, Fingerprint before, String what) {
        requests++;
        if (status >= 500) {
            failures.add(what + ": HTTP " + status);
            return;
        }
        if (before != null) {
            Fingerprint after = Fingerprint.take();
            if (!after.equals(before)) {
                failures.add(
                        what + ": refused with " + status + " but the database changed: " + before + " -> " + after);
            }
        }
    }

    static Answer raw(String method, String path, String token, byte[] body, String contentType) throws Exception {
        return raw(method, path, token, body, contentType, Map.of());
    }

    /**
     * A browser's form post with {@code cookies}; null (and a failure noted) when no answer came. Once is allowed: the
     * JDK client does not retry a POST on a pooled connection the server had closed after an earlier refusal, which is
     * the client's doing, not an answer; and a refusal of the request line (414) sent while the body was still being
     * written is confirmed without the body.
     */
    static Answer formPost(String path, String body, String cookies) throws Exception {
        java.io.IOException last = null;
        for (int attempt = 0; attempt < 2; attempt++) {
            // The retry goes on a connection of its own: a pooled one the server has closed meanwhile fails again.
            try (HttpClient fresh = attempt == 0 ? null : HttpClient.newHttpClient()) {
                return raw(
                        "POST",
                        path,
                        null,
                        body.getBytes(StandardCharsets.UTF_8),
                        "application/x-www-form-urlencoded",
                        Map.of("Cookie", cookies),
                        fresh == null ? CLIENT : fresh);
            } catch (java.io.IOException e) {
                last = e;
            }
        }
        // The server may refuse the request line itself (414 for an over-long path) and close the connection while the
        // client still sends the body: the reset can swallow that answer, twice. Ask once more without a body, on a
        // raw socket, to see the refusal itself; only a 4xx counts as the answer.
        int refused = rawSocket("POST", path, ("Cookie: " + cookies + "\r\n").getBytes(StandardCharsets.US_ASCII), "");
        if (refused >= 400 && refused < 500) {
            return new Answer(refused, "", "");
        }
        failures.add("POST " + path.substring(0, Math.min(120, path.length())) + ": no answer: " + last
                + " (without a body: " + refused + ")");
        return null;
    }

    /** {@link #raw(String, String, String, byte[], String)} with more headers (a browser's cookies, say). */
    static Answer raw(
            String method, String path, String token, byte[] body, String contentType, Map<String, String> headers)
            throws Exception {
        return raw(method, path, token, body, contentType, headers, CLIENT);
    }

    /** {@link #raw(String, String, String, byte[], String, Map)} through {@code client}. */
    static Answer raw(
            String method,
            String path,
            String token,
            byte[] body,
            String contentType,
            Map<String, String> headers,
            HttpClient client)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(http.baseUri() + path))
                .timeout(Duration.ofSeconds(20))
                .method(
                        method,
                        body == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofByteArray(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        headers.forEach(request::header);
        if (contentType != null) {
            try {
                request.header("Content-Type", contentType);
            } catch (IllegalArgumentException e) {
                return new Answer(400, "", "not sendable"); // the JDK client refuses it: nothing to test
            }
        }
        HttpResponse<String> res = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
        return new Answer(
                res.statusCode(), res.headers().firstValue("Content-Type").orElse(""), res.body());
    }

    /** The status of an SSE request; the stream, if it opens, is closed at once. */
    static int sseStatus(String path, String token) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(http.baseUri() + path))
                .header("Accept", "text/event-stream")
                .header("Authorization", "Bearer " + token)
                .GET()
                .build();
        HttpResponse<InputStream> res = CLIENT.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream())
                .get(20, TimeUnit.SECONDS);
        res.body().close();
        return res.statusCode();
    }

    /** What refused requests must never change: row counts and the latest update of every request-written table. */
    record Fingerprint(List<String> values) {
        static final String QUERY =
                "SELECT (SELECT count(*) || '/' || coalesce(max(updated_at)::text, '') FROM agents), "
                        + "(SELECT count(*) FROM delegations), (SELECT count(*) FROM api_tokens), "
                        + "(SELECT count(*) FROM webhook_endpoints), (SELECT count(*) || '/' || coalesce(max(updated_at)::text, '') "
                        + "FROM users), (SELECT count(*) FROM user_sessions WHERE revoked_at IS NULL), "
                        + "(SELECT count(*) FROM organizations), (SELECT count(*) || '/' || coalesce(string_agg(role, ',' "
                        + "ORDER BY organization_id, user_id), '') FROM organization_members), "
                        + "(SELECT count(*) FROM organization_roles), "
                        + "(SELECT count(*) || '/' || coalesce(max(updated_at)::text, '') FROM ssf_streams)";

        private static Connection conn;

        static synchronized Fingerprint take() {
            try {
                if (conn == null) {
                    conn = DriverManager.getConnection(warden.infra().jdbcUrl());
                    try (Statement st = conn.createStatement()) {
                        st.execute("SET search_path TO "
                                + warden.config().postgres().schema().orElseThrow());
                    }
                }
                try (Statement st = conn.createStatement();
                        ResultSet rs = st.executeQuery(QUERY)) {
                    rs.next();
                    List<String> values = new ArrayList<>();
                    for (int i = 1; i <= 10; i++) {
                        values.add(rs.getString(i));
                    }
                    return new Fingerprint(values);
                }
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
