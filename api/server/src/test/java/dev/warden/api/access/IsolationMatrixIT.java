package dev.warden.api.access;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.api.oauth.OAuthDriver;
import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.api.users.UsersConfig;
import dev.warden.api.webhooks.WebhooksConfig;
import dev.warden.testing.Http;
import dev.warden.testing.SseClient;
import dev.warden.testing.TestPlatform;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The isolation matrix (docs/organizations.md): two organizations, A and B, each with an owner, an administrator,
 * a member, the member's agents, a delegation, a webhook endpoint, an API token, audit entries and a Shared Signals
 * receiver (a service agent with client credentials) with its stream. Every principal
 * of A (owner, admin and member sessions, an API token with every area's scopes, an OAuth access token from the
 * code flow, an agent token, an agent's client-credentials token) calls every route the platform mounted, read from
 * its route table, with B's identifiers in the path, the query and the body, then reads the event stream from the
 * beginning. Nothing B owns may appear in any answer, and afterwards B's state must be exactly what it was.
 *
 * <p>The routes are not listed here: a route mounted tomorrow is called by this test the day it is mounted. A
 * route with a path parameter this test has no value for fails the test until one is added to {@link #value}.
 * The bootstrap administrator is the deployment's operator, outside every organization: it is the one principal
 * that reaches B, which the last test asserts so that a change of that rule is a decision, not an accident.
 */
@org.junit.jupiter.api.TestMethodOrder(org.junit.jupiter.api.MethodOrderer.OrderAnnotation.class)
class IsolationMatrixIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b -> b.accountRoutes(true)
            .users(UsersConfig.builder().argon2(1024, 1, 1).build())
            .rateLimit(RateLimitConfig.builder()
                    .endpoint(AuthEndpoint.OAUTH_AUTHORIZE, 100_000, 60)
                    .endpoint(AuthEndpoint.OAUTH_INTROSPECT, 100_000, 60)
                    .endpoint(AuthEndpoint.OAUTH_REVOKE, 100_000, 60)
                    .endpoint(AuthEndpoint.SIGN_UP, 10_000, 60)
                    .endpoint(AuthEndpoint.SIGN_IN, 10_000, 60)
                    .endpoint(AuthEndpoint.OAUTH_TOKEN, 10_000, 60)
                    .build())
            .webhooks(WebhooksConfig.builder().allowPrivateTargets(true).build()));

    /**
     * Routes that end the caller's own credential and take no parameter (so cannot reach another tenant): called
     * last, after everything else, so that they do not end the principals the matrix still needs.
     */
    private static final Set<String> ENDS_OWN_CREDENTIAL = Set.of("POST /auth/sign-out", "DELETE /auth/tokens/current");

    private static final Pattern PARAMETER = Pattern.compile("\\{([^}]+)}");
    private static final String API_SCOPES = "[\"agents:*\",\"delegations:*\",\"audit:read\",\"dashboard:read\","
            + "\"events:read\",\"webhooks:*\",\"organizations:*\",\"authorize:write\",\"costs:write\"]";

    static Http http;
    static Tenant a;
    static Tenant b;

    /** One organization and everything in it. */
    record Tenant(
            String org,
            String orgName,
            Map<String, String> sessions,
            Map<String, String> userIds,
            List<String> usernames,
            String agent,
            String agentName,
            String serviceAgent,
            String agentToken,
            String serviceToken,
            String delegation,
            String webhook,
            String apiToken,
            String apiTokenId,
            String role,
            String auditEntry,
            String approval,
            String receiver,
            String receiverToken,
            String stream) {
        /** Every identifier and name of this tenant that no other tenant may ever read. */
        Set<String> markers() {
            Set<String> all = new LinkedHashSet<>(List.of(
                    org,
                    orgName,
                    agent,
                    agentName,
                    serviceAgent,
                    delegation,
                    webhook,
                    apiTokenId,
                    role,
                    auditEntry,
                    approval,
                    receiver,
                    stream));
            all.addAll(userIds.values());
            all.addAll(usernames);
            return all;
        }
    }

    @BeforeAll
    static void twoOrganizations() throws Exception {
        http = warden.http();
        a = tenant("a");
        b = tenant("b");
    }

    static Tenant tenant(String label) throws Exception {
        String tag = label + UUID.randomUUID().toString().substring(0, 8);
        Map<String, String> sessions = new LinkedHashMap<>();
        Map<String, String> ids = new LinkedHashMap<>();
        List<String> usernames = new ArrayList<>();
        for (String who : List.of("owner", "admin", "member")) {
            String username = who + "_" + tag;
            Http.Response r = http.post(
                    "/auth/sign-up",
                    null,
                    "{\"username\":\"" + username + "\",\"password\":\"a long enough password\"}");
            assertThat(r.status()).as(r.body()).isEqualTo(201);
            sessions.put(who, r.json().get("token").asText());
            ids.put(who, r.json().at("/user/id").asText());
            usernames.add(username);
        }
        String orgName = "Org " + tag;
        String org = ok(http.post("/admin/v1/organizations", sessions.get("owner"), "{\"name\":\"" + orgName + "\"}"))
                .get("id")
                .asText();
        for (String who : List.of("admin", "member")) {
            ok(http.post(
                    "/admin/v1/organizations/" + org + "/members",
                    sessions.get("owner"),
                    "{\"userId\":\"" + ids.get(who) + "\",\"role\":\"" + who + "\"}"));
        }
        String role = "role_" + tag;
        ok(http.post(
                "/admin/v1/organizations/" + org + "/roles",
                sessions.get("owner"),
                "{\"name\":\"" + role + "\",\"permissions\":[\"agents:read\"]}"));
        String member = sessions.get("member");
        String agentName = "agent " + tag;
        JsonNode agent = ok(http.post(
                "/agents",
                member,
                "{\"ownerId\":\"" + ids.get("member") + "\",\"name\":\""
                        + agentName
                        + "\",\"type\":\"autonomous\",\"permissions\":[{\"resource\":\"agents\",\"actions\":[\"read\"]},"
                        + "{\"resource\":\"doc:*\",\"actions\":[\"read\"]},"
                        + "{\"resource\":\"pay:*\",\"actions\":[\"refund\"],\"constraints\":{\"requireApproval\":"
                        + "{\"approvers\":\"organization_admins\"}}}]}"));
        JsonNode service = ok(
                http.post(
                        "/agents",
                        member,
                        "{\"ownerId\":\"" + ids.get("member") + "\",\"name\":\"svc " + tag
                                + "\",\"type\":\"service\",\"permissions\":[{\"resource\":\"agents\",\"actions\":[\"read\"]}]}"));
        String delegation = ok(http.post(
                        "/delegations",
                        member,
                        "{\"fromAgent\":\"" + agent.get("id").asText()
                                + "\",\"toAgent\":\"" + service.get("id").asText()
                                + "\",\"permissions\":[{\"resource\":\"doc:*\","
                                + "\"actions\":[\"read\"]}],\"maxDepth\":2}"))
                .get("id")
                .asText();
        String webhook = ok(http.post("/webhooks", member, "{\"url\":\"http://127.0.0.1:9/" + tag + "\"}"))
                .get("id")
                .asText();
        JsonNode apiToken =
                ok(http.post("/auth/tokens", member, "{\"name\":\"t " + tag + "\",\"scopes\":" + API_SCOPES + "}"));
        // Audit entries and events of this tenant: a decision and a cost.
        String auditEntry = ok(http.post(
                        "/authorize",
                        agent.get("token").asText(),
                        "{\"agentId\":\"" + agent.get("id").asText() + "\",\"action\":\"read\",\"resource\":\"doc:"
                                + tag + "\"}"))
                .get("auditId")
                .asText();
        // An approval request of this tenant, for its organization's administrators
        String approval = ok(http.post(
                        "/authorize",
                        agent.get("token").asText(),
                        "{\"agentId\":\"" + agent.get("id").asText() + "\",\"action\":\"refund\",\"resource\":\"pay:"
                                + tag + "\"}"))
                .get("approvalId")
                .asText();
        ok(http.post("/agents/" + service.get("id").asText() + "/oauth-client", member));
        String serviceToken = clientCredentials(
                service.get("id").asText(), service.get("token").asText());
        // A Shared Signals receiver of the member's, with client credentials, and its poll stream
        JsonNode receiver = ok(
                http.post(
                        "/agents",
                        member,
                        "{\"ownerId\":\"" + ids.get("member") + "\",\"name\":\"receiver " + tag
                                + "\",\"type\":\"service\",\"permissions\":[{\"resource\":\"ssf\",\"actions\":[\"read\",\"write\"]}]}"));
        ok(http.post("/agents/" + receiver.get("id").asText() + "/oauth-client", member));
        String receiverToken = clientCredentials(
                receiver.get("id").asText(), receiver.get("token").asText(), "ssf:read ssf:write");
        String stream = ok(http.post(
                        "/ssf/streams",
                        receiverToken,
                        "{\"delivery\":{\"method\":\"urn:ietf:rfc:8936\"},\"description\":\"stream " + tag + "\"}"))
                .get("stream_id")
                .asText();
        return new Tenant(
                org,
                orgName,
                sessions,
                ids,
                usernames,
                agent.get("id").asText(),
                agentName,
                service.get("id").asText(),
                agent.get("token").asText(),
                serviceToken,
                delegation,
                webhook,
                apiToken.get("token").asText(),
                apiToken.get("id").asText(),
                role,
                auditEntry,
                approval,
                receiver.get("id").asText(),
                receiverToken,
                stream);
    }

    static String clientCredentials(String id, String secret) {
        return clientCredentials(id, secret, null);
    }

    /** A client-credentials access token of the bound agent {@code id}, for {@code scope} (null: the default). */
    static String clientCredentials(String id, String secret, String scope) {
        // A bound agent's client registered client_secret_basic: the secret goes in the Basic header.
        String basic = java.util.Base64.getEncoder()
                .encodeToString((id + ":" + secret).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        Http.Response r = http.send(http.builder("/oauth/token", null)
                .header("Authorization", "Basic " + basic)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("grant_type=client_credentials"
                        + (scope == null
                                ? ""
                                : "&scope="
                                        + java.net.URLEncoder.encode(
                                                scope, java.nio.charset.StandardCharsets.UTF_8)))));
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json().get("access_token").asText();
    }

    static String userOAuthToken(String session) {
        OAuthDriver driver = new OAuthDriver(http);
        String client = driver.registerPublicClient();
        OAuthDriver.Pkce pkce = OAuthDriver.Pkce.fresh();
        Map<String, String> request = OAuthDriver.request(client, pkce, "st");
        request.put(
                "scope",
                "agents:read agents:write delegations:read delegations:write audit:read dashboard:read "
                        + "events:read webhooks:read webhooks:write");
        URI back = driver.authorize(session, request);
        Http.Response token = driver.exchange(client, OAuthDriver.query(back).get("code"), pkce);
        assertThat(token.status()).as(token.body()).isEqualTo(200);
        return token.json().get("access_token").asText();
    }

    static JsonNode ok(Http.Response r) {
        assertThat(r.status()).as(r.body()).isBetween(200, 299);
        return r.json();
    }

    private static Map<String, String> principalsOfA;

    /** Every principal of A, by name (made once: registering the OAuth client is limited to one a minute). */
    static synchronized Map<String, String> principalsOfA() {
        if (principalsOfA != null) {
            return principalsOfA;
        }
        Map<String, String> p = new LinkedHashMap<>();
        a.sessions().forEach((who, token) -> p.put(who + " (session)", token));
        p.put("member API token (scoped)", a.apiToken());
        p.put("member OAuth access token", userOAuthToken(a.sessions().get("member")));
        p.put("agent token", a.agentToken());
        p.put("agent client-credentials token", a.serviceToken());
        principalsOfA = p;
        return p;
    }

    /** B's value for a path parameter, by the parameter's name and the segment before it. */
    static String value(String parameter, String previousSegment) {
        return switch (parameter) {
            case "orgID" -> b.org();
            case "agentID" -> b.agent();
            case "delegationID" -> b.delegation();
            case "userID" -> b.userIds().get("member");
            case "role" -> b.role();
            case "action" -> "revoke";
            case "decision" -> "approve";
            case "name" -> "console.css";
            case "streamId" -> b.stream();
            case "id" ->
                switch (previousSegment) {
                    case "agents" -> b.agent();
                    case "delegations" -> b.delegation();
                    case "webhooks" -> b.webhook();
                    case "tokens" -> b.apiTokenId();
                    case "dead-letters" -> "1";
                    case "audit" -> b.auditEntry();
                    case "approvals" -> b.approval();
                    case "sessions" ->
                        http.get("/auth/session", b.sessions().get("member"))
                                .json()
                                .at("/session/id")
                                .asText();
                    case "passkeys" -> passkeyOfB();
                    default ->
                        throw new AssertionError("no value of B for {id} after /" + previousSegment
                                + ": add one to IsolationMatrixIT.value");
                };
            default ->
                throw new AssertionError("no value of B for {" + parameter + "}: add one to IsolationMatrixIT.value");
        };
    }

    /** A passkey of B's member, stored directly (registering one takes an authenticator: PasskeyBrowserIT). */
    static String passkeyOfB() {
        String id = "pk_isolation_b";
        warden.execute(
                "INSERT INTO passkeys (id, user_id, credential_id, attested_credential_data, sign_count, uv_initialized,"
                        + " backup_eligible, backed_up, name, created_at) VALUES (?, ?, ?, ?, 0, true, false, false,"
                        + " 'B key', now()) ON CONFLICT (id) DO NOTHING",
                id,
                b.userIds().get("member"),
                id.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                new byte[] {0});
        return id;
    }

    /** The route's path with B's values, and a trailing wildcard filled in. */
    static String path(String pattern) {
        String[] segments = pattern.split("/", -1);
        StringBuilder out = new StringBuilder();
        for (int i = 1; i < segments.length; i++) {
            Matcher m = PARAMETER.matcher(segments[i]);
            String segment =
                    m.matches() ? value(m.group(1), segments[i - 1]) : segments[i].equals("*") ? "x" : segments[i];
            out.append('/').append(segment);
        }
        return out.isEmpty() ? "/" : out.toString();
    }

    /** Query parameters naming B, for the list and export routes that filter by them. */
    static String query() {
        return "?agentId=" + b.agent() + "&userId=" + b.userIds().get("member") + "&fromAgent=" + b.agent()
                + "&toAgent=" + b.serviceAgent() + "&tenantId=" + b.org() + "&stream_id=" + b.stream()
                + "&format=json&since=2000-01-01T00:00:00Z";
    }

    /** A body naming B's resources in every field a write route may read. */
    static String body() {
        return "{\"ownerId\":\"" + b.userIds().get("member") + "\",\"tenantId\":\"" + b.org() + "\",\"agentId\":\""
                + b.agent() + "\",\"fromAgent\":\"" + b.agent() + "\",\"toAgent\":\"" + b.serviceAgent()
                + "\",\"userId\":\"" + b.userIds().get("member") + "\",\"organizationId\":\"" + b.org()
                + "\",\"role\":\"admin\",\"name\":\"x\",\"type\":\"service\",\"action\":\"read\",\"resource\":\"doc:1\","
                + "\"permissions\":[{\"resource\":\"doc:*\",\"actions\":[\"read\"]}],\"maxDepth\":2}";
    }

    @Test
    @org.junit.jupiter.api.Order(2)
    void nothingOfOneOrganizationIsReadableOrChangeableFromTheOther() throws Exception {
        Map<String, String> principals = principalsOfA();
        JsonNode before = snapshotOfB();
        // The matrix proves something only if A's principals are live and see A's own things.
        principals.forEach((name, token) ->
                assertThat(http.get("/agents", token).status()).as(name).isEqualTo(200));
        assertThat(streamFromTheBeginning(a.sessions().get("member"))).contains(a.agent());
        assertThat(http.get(
                                "/admin/v1/organizations/" + a.org() + "/agents",
                                a.sessions().get("owner"))
                        .body())
                .contains(a.agent());
        List<String> leaks = new ArrayList<>();
        int calls = 0;
        List<RouteTable.Route> routes = new ArrayList<>(warden.routes());
        routes.sort(java.util.Comparator.comparing(r -> ENDS_OWN_CREDENTIAL.contains(r.method() + " " + r.pattern())));
        for (Map.Entry<String, String> principal : principals.entrySet()) {
            String seen = streamFromTheBeginning(principal.getValue());
            String leaked = leaked(seen);
            if (leaked != null) {
                leaks.add("GET /events/stream as " + principal.getKey() + " shows " + leaked);
            }
        }
        for (RouteTable.Route route : routes) {
            if (route.pattern().equals("/events/stream")) {
                continue;
            }
            String path = path(route.pattern()) + query();
            String method = route.method().equals("*") ? "GET" : route.method();
            for (Map.Entry<String, String> principal : principals.entrySet()) {
                Http.Response r = send(method, path, principal.getValue());
                calls++;
                String leaked = leaked(withoutInstance(r));
                if (leaked != null) {
                    leaks.add(method + " " + route.pattern() + " as " + principal.getKey() + ": " + r.status()
                            + " shows " + leaked + " in " + r.body());
                }
            }
        }
        assertThat(leaks).isEmpty();
        assertThat(calls).isGreaterThan(50 * principals.size());
        assertThat(snapshotOfB()).isEqualTo(before);
    }

    @Test
    @org.junit.jupiter.api.Order(1)
    void anAuthzenSearchOrEvaluationFromOneOrganizationNeverFindsTheOthersAgents() {
        String agents = "{\"subject\":{\"type\":\"agent\"},\"action\":{\"name\":\"read\"},"
                + "\"resource\":{\"type\":\"doc\",\"id\":\"x\"}}";
        String ofB = "{\"subject\":{\"type\":\"agent\",\"id\":\"" + b.agent() + "\"},\"action\":{\"name\":\"read\"},"
                + "\"resource\":{\"type\":\"doc\",\"id\":\"x\"}}";
        // The positive control: A's member finds A's own agent
        Http.Response own = http.post("/access/v1/search/subject", a.sessions().get("member"), agents);
        assertThat(own.status()).as(own.body()).isEqualTo(200);
        assertThat(own.body()).contains(a.agent());
        List<String> leaks = new ArrayList<>();
        for (Map.Entry<String, String> principal : principalsOfA().entrySet()) {
            for (String[] call : List.of(
                    new String[] {"/access/v1/search/subject", agents},
                    new String[] {"/access/v1/search/resource", ofB.replace("\"id\":\"x\"", "\"id\":\"\"")},
                    new String[] {"/access/v1/search/action", ofB},
                    new String[] {"/access/v1/evaluation", ofB})) {
                Http.Response r = http.post(call[0], principal.getValue(), call[1]);
                String leaked = leaked(withoutInstance(r));
                if (leaked != null || (r.status() == 200 && r.body().contains("\"decision\":true"))) {
                    leaks.add(call[0] + " as " + principal.getKey() + ": " + r.status() + " " + r.body());
                }
                if (r.status() == 200 && call[0].contains("search/") && !call[0].endsWith("subject")) {
                    assertThat(r.json().get("results"))
                            .as(call[0] + " as " + principal.getKey())
                            .isEmpty();
                }
            }
        }
        assertThat(leaks).isEmpty();
    }

    @Test
    @org.junit.jupiter.api.Order(1)
    void aReceiverNeverReadsChangesPollsOrDeletesAnotherOwnersStreamNorListsIt() {
        String mine = a.stream();
        String theirs = b.stream();
        // The positive control: A's receiver reads, lists and polls its own stream
        assertThat(ok(http.get("/ssf/streams?stream_id=" + mine, a.receiverToken()))
                        .get("stream_id")
                        .asText())
                .isEqualTo(mine);
        assertThat(http.get("/ssf/streams", a.receiverToken()).body()).contains(mine);
        ok(http.post("/ssf/poll/" + mine, a.receiverToken(), "{\"returnImmediately\":true}"));
        JsonNode before = snapshotOfB();

        String subject = ",\"subject\":{\"format\":\"opaque\",\"id\":\"" + b.agent() + "\"}";
        List<String[]> calls = List.of(
                new String[] {"GET", "/ssf/streams?stream_id=" + theirs, null},
                new String[] {"GET", "/ssf/status?stream_id=" + theirs, null},
                new String[] {"PATCH", "/ssf/streams", "{\"stream_id\":\"" + theirs + "\",\"description\":\"mine\"}"},
                new String[] {"PUT", "/ssf/streams", "{\"stream_id\":\"" + theirs + "\"}"},
                new String[] {"POST", "/ssf/status", "{\"stream_id\":\"" + theirs + "\",\"status\":\"disabled\"}"},
                new String[] {"POST", "/ssf/subjects/remove", "{\"stream_id\":\"" + theirs + "\"" + subject + "}"},
                new String[] {"POST", "/ssf/subjects/add", "{\"stream_id\":\"" + theirs + "\"" + subject + "}"},
                new String[] {"POST", "/ssf/verify", "{\"stream_id\":\"" + theirs + "\"}"},
                new String[] {"POST", "/ssf/poll/" + theirs, "{\"returnImmediately\":true,\"maxEvents\":5}"},
                new String[] {"DELETE", "/ssf/streams?stream_id=" + theirs, null});
        Map<String, String> principals = new LinkedHashMap<>();
        principals.put("receiver (client credentials, ssf:read ssf:write)", a.receiverToken());
        principals.putAll(principalsOfA());
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, String> principal : principals.entrySet()) {
            boolean receiver = principal.getValue().equals(a.receiverToken());
            for (String[] call : calls) {
                HttpRequest.Builder request = http.builder(call[1], principal.getValue());
                request = call[2] == null
                        ? request.method(call[0], HttpRequest.BodyPublishers.noBody())
                        : request.header("Content-Type", "application/json")
                                .method(call[0], HttpRequest.BodyPublishers.ofString(call[2]));
                Http.Response r = http.send(request);
                String what =
                        call[0] + " " + call[1] + " as " + principal.getKey() + ": " + r.status() + " " + r.body();
                String leaked = leaked(withoutInstance(r));
                boolean notFound = r.status() == 404
                        && r.json() != null
                        && "stream_not_found".equals(r.json().path("code").asText());
                // A principal without the ssf scopes is refused before the stream is looked up (403).
                if (leaked != null || !(notFound || (!receiver && r.status() == 403))) {
                    wrong.add(what);
                }
            }
            Http.Response list = http.get("/ssf/streams", principal.getValue());
            if (leaked(list.body()) != null || (receiver && list.status() != 200)) {
                wrong.add("GET /ssf/streams as " + principal.getKey() + ": " + list.status() + " " + list.body());
            }
        }
        assertThat(wrong).isEmpty();
        assertThat(snapshotOfB()).isEqualTo(before);
        assertThat(ok(http.get("/ssf/status?stream_id=" + theirs, b.receiverToken()))
                        .get("status")
                        .asText())
                .isEqualTo("enabled");
    }

    @Test
    void theBootstrapAdministratorIsTheOnePrincipalThatReachesEveryOrganization() {
        Http.Response agents = http.get("/admin/v1/organizations/" + b.org() + "/agents", warden.adminToken());
        assertThat(agents.status()).isEqualTo(200);
        assertThat(agents.body()).contains(b.agent());
        assertThat(http.get("/admin/v1/organizations/" + a.org() + "/agents", warden.adminToken())
                        .body())
                .contains(a.agent())
                .doesNotContain(b.agent());
    }

    /** What B owns, as B's owner and member read it: any change made from A shows here. */
    static JsonNode snapshotOfB() {
        String owner = b.sessions().get("owner");
        String member = b.sessions().get("member");
        var snapshot = dev.warden.pipeline.contract.Json.mapper().createObjectNode();
        snapshot.set(
                "organization",
                http.get("/admin/v1/organizations/" + b.org(), owner).json());
        snapshot.set(
                "members",
                http.get("/admin/v1/organizations/" + b.org() + "/members", owner)
                        .json());
        snapshot.set(
                "roles",
                http.get("/admin/v1/organizations/" + b.org() + "/roles", owner).json());
        snapshot.set("agents", http.get("/agents", member).json());
        snapshot.set("delegations", http.get("/delegations", member).json());
        snapshot.set("webhooks", http.get("/webhooks", member).json());
        snapshot.set("tokens", http.get("/auth/tokens", member).json());
        snapshot.put("apiTokenWorks", http.get("/agents", b.apiToken()).status());
        snapshot.set("memberSessions", http.get("/auth/sessions", member).json().get("sessions"));
        snapshot.put(
                "agentTokenWorks",
                http.get("/agents/" + b.agent(), b.agentToken()).status());
        snapshot.put(
                "serviceTokenWorks",
                http.get("/agents/" + b.serviceAgent(), b.serviceToken()).status());
        snapshot.set("ssfStreams", http.get("/ssf/streams", b.receiverToken()).json());
        snapshot.set(
                "ssfStatus",
                http.get("/ssf/status?stream_id=" + b.stream(), b.receiverToken())
                        .json());
        snapshot.put(
                "activeOrganizationOfMember",
                http.get("/admin/v1/active-organization", member)
                        .json()
                        .get("id")
                        .asText());
        return snapshot;
    }

    static Http.Response send(String method, String path, String token) {
        HttpRequest.Builder request = http.builder(path, token).header("Content-Type", "application/json");
        request = switch (method) {
            case "GET" -> request.GET();
            case "DELETE" -> request.DELETE();
            default -> request.method(method, HttpRequest.BodyPublishers.ofString(body()));
        };
        return http.send(request);
    }

    /** The body without a problem's {@code instance} (the request path the caller sent, echoed). */
    static String withoutInstance(Http.Response r) {
        if (r.json() != null && r.json().isObject() && r.json().has("instance")) {
            var copy = ((com.fasterxml.jackson.databind.node.ObjectNode) r.json()).deepCopy();
            copy.remove("instance");
            return copy.toString();
        }
        return r.body();
    }

    /** The first of B's markers in {@code text}, or null. */
    static String leaked(String text) {
        for (String marker : b.markers()) {
            if (text.contains(marker)) {
                return marker;
            }
        }
        return null;
    }

    /** Everything the event stream replays and sends to {@code token} within two seconds. */
    static String streamFromTheBeginning(String token) throws InterruptedException {
        try (SseClient sse = SseClient.connect(
                http.baseUri(),
                "/events/stream?since=2000-01-01T00:00:00Z",
                Map.of("Authorization", "Bearer " + token))) {
            StringBuilder seen = new StringBuilder();
            for (SseClient.Message m : sse.events(10_000, Duration.ofSeconds(2))) {
                seen.append(m.event()).append(' ').append(m.data()).append('\n');
            }
            return seen.toString();
        }
    }
}
