package dev.warden.api.access;

import static dev.warden.testing.TestAgents.anAgent;
import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.api.auth.AuthFilter;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.webclient.http1.Http1ClientRequest;
import io.helidon.webclient.http1.Http1ClientResponse;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.testing.junit5.DirectClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The access matrix, without a socket: every reviewed route ({@link ReviewedRoutes}) times every kind of
 * caller gives exactly the status its declaration implies. The routes are mounted in a routing of their own
 * whose handlers only answer 200, behind the real {@link AuthFilter} and the real credential chain of a
 * running platform (an agent, a signed-in user, that user's API tokens and the administrator, all made
 * through its API and stored in PostgreSQL), and driven by Helidon's {@link DirectClient}, which calls the
 * routing directly. What the services then decide for a caller the filter let through (an agent creating
 * API tokens, a user reading another's agent) is tested with each service.
 */
class AccessMatrixRoutingIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform();

    /** The kinds of caller, each with the bearer value it sends (none for the anonymous caller). */
    enum Caller {
        ANONYMOUS,
        INVALID,
        ADMINISTRATOR,
        AGENT,
        SESSION,
        API_TOKEN_ALL_SCOPES,
        API_TOKEN_NARROW
    }

    /** The one scope the narrow token holds (the event stream's, a route that checks its own callers). */
    static final String NARROW_SCOPE = "events:read";

    static final Map<Caller, Optional<String>> TOKENS = new LinkedHashMap<>();
    static DirectClient client;

    @BeforeAll
    static void callersAndRouting() {
        Http http = warden.http();
        String admin = warden.adminToken();
        Http.Response signedUp = http.post(
                "/auth/sign-up", null, "{\"username\":\"matrix_user\",\"password\":\"a long enough password\"}");
        assertThat(signedUp.status()).as(signedUp.body()).isEqualTo(201);
        String userId = signedUp.json().at("/user/id").asText();
        TOKENS.put(Caller.ANONYMOUS, Optional.empty());
        TOKENS.put(Caller.INVALID, Optional.of("wdn_api_not-a-real-token"));
        TOKENS.put(Caller.ADMINISTRATOR, Optional.of(admin));
        TOKENS.put(
                Caller.AGENT,
                Optional.of(http.post("/agents", admin, anAgent(userId).json())
                        .json()
                        .get("token")
                        .asText()));
        TOKENS.put(Caller.SESSION, Optional.of(signedUp.json().get("token").asText()));
        TOKENS.put(Caller.API_TOKEN_ALL_SCOPES, Optional.of(apiToken(http, admin, userId, Scopes.ALL)));
        TOKENS.put(Caller.API_TOKEN_NARROW, Optional.of(apiToken(http, admin, userId, NARROW_SCOPE)));

        RouteTable table = new RouteTable();
        HttpRouting.Builder routing = HttpRouting.builder().addFilter(new AuthFilter(warden.authenticator(), table));
        ReviewedRoutes.EXPECTED.forEach((route, access) -> {
            String method = route.substring(0, route.indexOf(' '));
            String pattern = route.substring(route.indexOf(' ') + 1);
            table.add(method, pattern, access);
            if (method.equals("*")) {
                routing.any(pattern, (req, res) -> res.send("reached"));
            } else {
                routing.route(Method.create(method), pattern, (req, res) -> res.send("reached"));
            }
        });
        routing.any((req, res) -> res.status(404).send());
        client = new DirectClient(routing);
    }

    static String apiToken(Http http, String admin, String userId, String scope) {
        Http.Response created = http.post(
                "/auth/tokens",
                admin,
                "{\"name\":\"matrix\",\"userId\":\"" + userId + "\",\"scopes\":[\"" + scope + "\"]}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return created.json().get("token").asText();
    }

    /** What the declaration implies for a caller: 200 reached, 401 unauthenticated or 403 refused. */
    static int expected(Access access, Caller caller) {
        if (access.needsNoToken()) {
            return 200;
        }
        if (caller == Caller.ANONYMOUS || caller == Caller.INVALID) {
            return 401;
        }
        return switch (access) {
            case Access.Caller c ->
                c.scope().isPresent()
                                && caller == Caller.API_TOKEN_NARROW
                                && !c.scope().get().equals(NARROW_SCOPE)
                        ? 403
                        : 200;
            case Access.Administrator a -> caller == Caller.ADMINISTRATOR ? 200 : 403;
            case Access.Session s -> caller == Caller.SESSION ? 200 : 403;
            case Access.Open o -> 200;
            case Access.SelfAuthenticating o -> 200;
        };
    }

    @Test
    void everyRouteAnswersEveryKindOfCallerAsItsDeclarationSays() {
        List<String> wrong = new ArrayList<>();
        int checked = 0;
        for (Map.Entry<String, Access> route : ReviewedRoutes.EXPECTED.entrySet()) {
            String method = route.getKey().substring(0, route.getKey().indexOf(' '));
            String path =
                    route.getKey().substring(route.getKey().indexOf(' ') + 1).replaceAll("\\{[^}]+}", "x0");
            for (Caller caller : Caller.values()) {
                int status = send(method.equals("*") ? "GET" : method, path, TOKENS.get(caller));
                int want = expected(route.getValue(), caller);
                checked++;
                if (status != want) {
                    wrong.add(route.getKey() + " as " + caller + ": " + status + ", expected " + want);
                }
            }
        }
        assertThat(wrong).isEmpty();
        assertThat(checked).isEqualTo(ReviewedRoutes.EXPECTED.size() * Caller.values().length);
    }

    @Test
    void aRouteNobodyDeclaredNeedsEveryScopeAndOtherwiseIsNotFound() {
        Map<Caller, Integer> want = Map.of(
                Caller.ANONYMOUS,
                401,
                Caller.INVALID,
                401,
                Caller.ADMINISTRATOR,
                404,
                Caller.AGENT,
                404,
                Caller.SESSION,
                404,
                Caller.API_TOKEN_ALL_SCOPES,
                404,
                Caller.API_TOKEN_NARROW,
                403);
        for (Caller caller : Caller.values()) {
            assertThat(send("GET", "/nowhere", TOKENS.get(caller)))
                    .as(caller.name())
                    .isEqualTo(want.get(caller));
        }
    }

    static int send(String method, String path, Optional<String> token) {
        Http1ClientRequest request =
                client.method(Method.create(method)).path(path).header(HeaderNames.CONTENT_TYPE, "application/json");
        token.ifPresent(t -> request.header(HeaderNames.AUTHORIZATION, "Bearer " + t));
        try (Http1ClientResponse response =
                method.equals("GET") || method.equals("DELETE") ? request.request() : request.submit("{}")) {
            return response.status().code();
        }
    }
}
