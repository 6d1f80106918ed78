package dev.warden.api.access;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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
    // The setup limit (5 a minute) covers /auth/setup/complete too, which this test calls four times after
    // /auth/setup's four: room for both, so that the session route answers its access and not 429.
    static final TestPlatform warden = new TestPlatform(b -> b.accountRoutes(true)
            .rateLimit(RateLimitConfig.builder()
                    .endpoint(AuthEndpoint.SETUP, 100, 60)
                    .build()));

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
                .json()
                .get("token")
                .asText();
    }

    @Test
    void everyMountedRouteDeclaredTheAccessReviewedHere() {
        Map<String, Access> mounted = new TreeMap<>();
        for (RouteTable.Route route : warden.routes()) {
            mounted.put(route.method() + " " + route.pattern(), route.access());
        }
        assertThat(mounted)
                .as("routes mounted without a reviewed access (add them to ReviewedRoutes.EXPECTED)")
                .containsOnlyKeys(ReviewedRoutes.EXPECTED.keySet());
        assertThat(mounted).containsAllEntriesOf(ReviewedRoutes.EXPECTED);
    }

    @Test
    void theFilterAnswersEveryRouteAndCallerAsDeclared() {
        List<String> wrong = new ArrayList<>();
        for (RouteTable.Route route : warden.routes()) {
            String method = route.method().equals("*") ? "GET" : route.method();
            String path = route.pattern().replaceAll("\\{[^}]+}", "x0");
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

    @Test
    void aMethodAPathDoesNotTakeIs405WithAllowAndOptionsListsWhatItTakes() {
        Http.Response put = answer("PUT", "/agents");
        assertThat(put.status()).isEqualTo(405);
        assertThat(put.header("Allow")).hasValue("GET, HEAD, OPTIONS, POST");
        assertThat(put.header("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
        assertThat(put.json().get("code").asText()).isEqualTo("method_not_allowed");
        assertThat(put.json().get("detail").asText()).contains("GET, HEAD, OPTIONS, POST");
        assertThat(put.json().get("requestId").asText())
                .as("the problem names its request, as the header does")
                .isEqualTo(put.header("X-Request-Id").orElseThrow());
        assertThat(answer("PUT", "/agents/agt_x").header("Allow")).hasValue("DELETE, GET, HEAD, OPTIONS, PATCH");
        assertThat(answer("DELETE", "/openapi.json").status()).isEqualTo(405);
        assertThat(send("GET", "/no/such/path", null))
                .as("a path no route has is not a 405")
                .isEqualTo(401);

        // OPTIONS on every path a route serves (routes for any method aside): 204, naming the route's method.
        List<String> wrong = new ArrayList<>();
        for (RouteTable.Route route : warden.routes()) {
            if (route.method().equals("*")) {
                continue;
            }
            String path = route.pattern().replaceAll("\\{[^}]+}", "x0");
            Http.Response options = answer("OPTIONS", path);
            if (options.status() != 204 || !options.header("Allow").orElse("").contains(route.method())) {
                wrong.add("OPTIONS " + path + ": " + options.status() + " " + options.header("Allow"));
            }
        }
        assertThat(wrong).isEmpty();
    }

    @Test
    void headAnswersEveryGetWithItsStatusAndHeadersAndNoBody() throws Exception {
        // Every GET route: HEAD gets the GET's status (the administrator's token, path parameters made up)
        List<String> wrong = new ArrayList<>();
        for (RouteTable.Route route : warden.routes()) {
            if (!route.method().equals("GET") || route.pattern().startsWith("/events/stream")) {
                continue;
            }
            String path = route.pattern().replaceAll("\\{[^}]+}", "x0");
            int get = send("GET", path, warden.adminToken());
            int head = http.send(
                            http.builder(path, warden.adminToken()).method("HEAD", HttpRequest.BodyPublishers.noBody()))
                    .status();
            if (get != head) {
                wrong.add("HEAD " + path + ": " + head + ", GET " + get);
            }
        }
        assertThat(wrong).isEmpty();

        // On one kept-alive connection: each HEAD answer is its head alone, with the GET's Content-Length (a 200
        // and a problem alike), so the answer after it reads as it should
        int length = http.get("/openapi.json", null).body().getBytes(StandardCharsets.UTF_8).length;
        try (java.net.Socket socket =
                new java.net.Socket("127.0.0.1", http.baseUri().getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream()
                    .write(("HEAD /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n"
                                    + "HEAD /agents HTTP/1.1\r\nHost: x\r\n\r\n"
                                    + "GET /observe/live HTTP/1.1\r\nHost: x\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            java.io.InputStream in = socket.getInputStream();
            String first = head(in);
            assertThat(first).startsWith("HTTP/1.1 200").containsIgnoringCase("Content-Length: " + length);
            String second = head(in);
            assertThat(second)
                    .startsWith("HTTP/1.1 401")
                    .containsIgnoringCase("Content-Type: application/problem+json");
            String third = head(in);
            assertThat(third)
                    .as("the next answer starts where the HEAD answers ended")
                    .startsWith("HTTP/1.1 200");
        }
    }

    /** An answer's head, up to its blank line. */
    static String head(java.io.InputStream in) throws java.io.IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                break;
            }
            head.append((char) c);
        }
        return head.toString();
    }

    static Http.Response answer(String method, String path) {
        return http.send(HttpRequest.newBuilder(URI.create(http.baseUri() + path))
                .method(method, HttpRequest.BodyPublishers.noBody()));
    }

    static int send(String method, String path, String token) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(http.baseUri() + path))
                .method(
                        method,
                        method.equals("GET") || method.equals("DELETE")
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofString("{}"))
                .header("Content-Type", "application/json");
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return http.send(request).status();
    }
}
