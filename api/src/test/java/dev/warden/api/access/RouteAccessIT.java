package dev.warden.api.access;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every route Warden mounts, with the access it declared, checked two ways. First against this reviewed list:
 * a new route fails the test until its access is written down here. Then through HTTP, for every route and
 * every kind of caller (none, an invalid token, a narrowly scoped API token, the administrator): the filter
 * answers exactly as the declaration says, before any handler runs.
 */
class RouteAccessIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform();

    /** The reviewed access of every route: "METHOD pattern" -> declaration. */
    static final Map<String, Access> EXPECTED = expected();

    static Map<String, Access> expected() {
        Map<String, Access> m = new LinkedHashMap<>();
        m.put("GET /observe/health", Access.open());
        m.put("GET /observe/live", Access.open());
        m.put("GET /observe/metrics", Access.open());
        for (String path : List.of("/agents", "/agents/{id}")) {
            m.put("GET " + path, Access.scope("agents:read"));
        }
        m.put("POST /agents", Access.scope("agents:write"));
        m.put("PATCH /agents/{id}", Access.scope("agents:write"));
        m.put("DELETE /agents/{id}", Access.scope("agents:write"));
        for (String op : List.of("rotate", "suspend", "resume")) {
            m.put("POST /agents/{id}/" + op, Access.scope("agents:write"));
        }
        m.put("POST /agents/{id}/costs", Access.scope("costs:write"));
        m.put("POST /auth/tokens", Access.scope(Scopes.ALL));
        m.put("GET /auth/tokens", Access.scope(Scopes.ALL));
        m.put("GET /auth/tokens/current", Access.anyCaller());
        m.put("DELETE /auth/tokens/current", Access.anyCaller());
        m.put("DELETE /auth/tokens/{id}", Access.scope(Scopes.ALL));
        m.put("POST /delegations", Access.scope("delegations:write"));
        m.put("GET /delegations", Access.scope("delegations:read"));
        m.put("DELETE /delegations/{id}", Access.scope("delegations:write"));
        m.put("POST /authorize", Access.scope("authorize:write"));
        m.put("GET /audit", Access.scope("audit:read"));
        m.put("GET /audit/export", Access.scope("audit:read"));
        m.put("GET /audit/stats", Access.administrator("the audit statistics"));
        m.put("GET /dashboard/stats", Access.scope("dashboard:read"));
        m.put("GET /admin/dead-letters", Access.administrator("dead letters"));
        m.put("* /events/stream", Access.selfAuthenticating());
        m.put("POST /webhooks", Access.scope("webhooks:write"));
        m.put("GET /webhooks", Access.scope("webhooks:read"));
        m.put("GET /webhooks/{id}", Access.scope("webhooks:read"));
        m.put("DELETE /webhooks/{id}", Access.scope("webhooks:write"));
        m.put("POST /auth/sign-up", Access.open());
        m.put("POST /auth/sign-in", Access.open());
        m.put("POST /auth/sign-out", Access.session());
        m.put("POST /auth/change-username", Access.session());
        m.put("GET /auth/session", Access.session());
        return m;
    }

    static Http http;
    static String admin;
    @BeforeAll
    static void tokens() {
        http = warden.http();
        admin = warden.adminToken();
    }

    /** A fresh API token of a user, holding one scope no declared route needs (a route may revoke it). */
    static String narrow() {
        return http.post("/auth/tokens", admin, "{\"name\":\"n\",\"userId\":\"nina\",\"scopes\":[\"events:read\"]}")
                .json().get("token").asText();
    }

    @Test
    void everyMountedRouteDeclaredTheAccessReviewedHere() {
        Map<String, Access> mounted = new TreeMap<>();
        for (RouteTable.Route route : warden.routes()) {
            mounted.put(route.method() + " " + route.pattern(), route.access());
        }
        assertThat(mounted).as("routes mounted without a reviewed access (add them to EXPECTED)")
                .containsOnlyKeys(EXPECTED.keySet());
        assertThat(mounted).containsAllEntriesOf(EXPECTED);
    }

    @Test
    void theFilterAnswersEveryRouteAndCallerAsDeclared() {
        List<String> wrong = new ArrayList<>();
        for (RouteTable.Route route : warden.routes()) {
            String method = route.method().equals("*") ? "GET" : route.method();
            String path = route.pattern().replace("{id}", "x0");
            int none = send(method, path, null);
            int invalid = send(method, path, "wdn_api_not-a-real-token");
            int scoped = send(method, path, narrow());
            int administrator = send(method, path, admin);
            String at = method + " " + route.pattern() + ": ";
            switch (route.access()) {
                case Access.Open o -> expectNot(wrong, at + "anonymous", none, 401, 403);
                case Access.SelfAuthenticating o -> expectNot(wrong, at + "anonymous", none, 401, 403);
                case Access.Caller c -> {
                    expect(wrong, at + "anonymous", none, 401);
                    expect(wrong, at + "invalid token", invalid, 401);
                    if (c.scope().isPresent()) {
                        expect(wrong, at + "token without " + c.scope().get(), scoped, 403);
                    }
                    expectNot(wrong, at + "administrator", administrator, 401);
                }
                case Access.Administrator a -> {
                    expect(wrong, at + "anonymous", none, 401);
                    expect(wrong, at + "a user", scoped, 403);
                    expectNot(wrong, at + "administrator", administrator, 401, 403);
                }
                case Access.Session s -> {
                    expect(wrong, at + "anonymous", none, 401);
                    expect(wrong, at + "an API token", scoped, 403);
                    expect(wrong, at + "administrator", administrator, 403);
                }
            }
        }
        int unknown = send("GET", "/nowhere", narrow());
        if (unknown != 403) {
            wrong.add("GET /nowhere with a narrow token: " + unknown + ", expected 403 (unknown routes need *)");
        }
        assertThat(wrong).isEmpty();
    }

    static void expect(List<String> wrong, String what, int status, int expected) {
        if (status != expected) {
            wrong.add(what + " answered " + status + ", expected " + expected);
        }
    }

    static void expectNot(List<String> wrong, String what, int status, int... refused) {
        for (int r : refused) {
            if (status == r) {
                wrong.add(what + " answered " + status);
            }
        }
    }

    static int send(String method, String path, String token) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(http.baseUri() + path))
                .method(method, method.equals("GET") || method.equals("DELETE") ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString("{}"))
                .header("Content-Type", "application/json");
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return http.send(request).status();
    }
}
