package dev.warden.api.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.api.users.UsersConfig;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The SPEC's per-IP limits on auth endpoints, with no rate-limit configuration at all, through real HTTP
 * (SPEC Limits, Errors "429 body", Authentication 6).
 */
class RateLimitIT {
    static final String BAD_SIGN_IN = "{\"username\":\"nobody_here\",\"password\":\"whatever-it-is\"}";

    /** Default limits; only Argon2 is made cheap so that many sign-ins stay fast. */
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(
            b -> b.users(UsersConfig.builder().argon2(1024, 1, 1).build()));

    /** Trusts the loopback address as a reverse proxy. */
    @RegisterExtension
    static final TestPlatform behindProxy = new TestPlatform(b -> b.users(
                    UsersConfig.builder().argon2(1024, 1, 1).build())
            .rateLimit(
                    RateLimitConfig.builder().trustedProxies("127.0.0.0/8, ::1").build()));

    @BeforeEach
    void freshWindow() {
        warden.clock().advance(Duration.ofMinutes(2));
        behindProxy.clock().advance(Duration.ofMinutes(2));
    }

    static Http.Response post(TestPlatform platform, String path, String body) {
        return platform.http().post(path, null, body);
    }

    static Http.Response postFrom(TestPlatform platform, String path, String header, String value) {
        return platform.http()
                .send(platform.http()
                        .builder(path, null)
                        .header("Content-Type", "application/json")
                        .header(header, value)
                        .POST(HttpRequest.BodyPublishers.ofString(BAD_SIGN_IN)));
    }

    @Test
    void signInAdmitsTenPerMinutePerIpThenAnswersTheSpecs429() {
        for (int i = 0; i < 10; i++) {
            assertThat(post(warden, "/auth/sign-in", BAD_SIGN_IN).status()).isEqualTo(401);
        }

        Http.Response limited = post(warden, "/auth/sign-in", BAD_SIGN_IN);

        assertThat(limited.status()).isEqualTo(429);
        assertThat(limited.header("Content-Type")).hasValue("application/json");
        // The platform's clock runs: ten sign-ins on a loaded machine can take more than a second, so
        // the wait is the window less that time, and the header, the message and the body agree on it.
        int retryAfter = Integer.parseInt(limited.header("Retry-After").orElseThrow());
        assertThat(retryAfter).isBetween(50, 60);
        assertThat(limited.json().get("error").get("code").asText()).isEqualTo("RATE_LIMIT_EXCEEDED");
        assertThat(limited.json().get("error").get("message").asText()).contains(retryAfter + " seconds");
        assertThat(limited.json().get("error").get("details").get("limit").asInt())
                .isEqualTo(10);
        assertThat(limited.json().get("error").get("details").get("window").asInt())
                .isEqualTo(60);
        assertThat(limited.json().get("error").get("details").get("retryAfter").asInt())
                .isEqualTo(retryAfter);
        assertThat(limited.json().size()).isEqualTo(1);
    }

    @Test
    void retryAfterCountsDownAndTheWindowSlides() {
        for (int i = 0; i < 5; i++) {
            post(warden, "/auth/sign-up", "{}");
        }
        warden.clock().advance(Duration.ofSeconds(20));
        for (int i = 0; i < 5; i++) {
            assertThat(post(warden, "/auth/sign-up", "{}").status()).isIn(400, 429);
        }
        Http.Response early = post(warden, "/auth/sign-up", "{}");
        assertThat(early.status()).isEqualTo(429);
        int retryAfter = Integer.parseInt(early.header("Retry-After").orElseThrow());
        assertThat(retryAfter)
                .as("the window less the 20 s moved and the time the calls took")
                .isBetween(35, 40);
        assertThat(early.json().get("error").get("details").get("retryAfter").asInt())
                .isEqualTo(retryAfter);

        warden.clock().advance(Duration.ofSeconds(40));

        assertThat(post(warden, "/auth/sign-up", "{}").status())
                .as("the oldest five left the window")
                .isEqualTo(400);
    }

    @Test
    void rejectedRequestsNeverReachTheHandler() {
        for (int i = 0; i < 5; i++) {
            assertThat(post(warden, "/auth/sign-up", "{}").status()).isEqualTo(400);
        }
        String name = "late_" + System.nanoTime();

        Http.Response limited =
                post(warden, "/auth/sign-up", "{\"username\":\"" + name + "\",\"password\":\"long enough password\"}");

        assertThat(limited.status()).isEqualTo(429);
        warden.clock().advance(Duration.ofMinutes(2));
        assertThat(post(
                                warden,
                                "/auth/sign-in",
                                "{\"username\":\"" + name + "\",\"password\":\"long enough password\"}")
                        .status())
                .as("the user was never created")
                .isEqualTo(401);
    }

    @Test
    void limitsAreCountedPerEndpoint() {
        for (int i = 0; i < 5; i++) {
            post(warden, "/auth/sign-up", "{}");
        }
        assertThat(post(warden, "/auth/sign-up", "{}").status()).isEqualTo(429);

        assertThat(post(warden, "/auth/sign-in", BAD_SIGN_IN).status()).isEqualTo(401);
    }

    @Test
    void endpointsOfLaterIssuesInheritTheirLimitsFromTheRegistry() {
        assertLimit("/auth/magic-link", 3);
        assertLimit("/auth/email-otp/send", 5);
        assertLimit("/auth/totp/verify", 10);
        assertLimit("/mcp/token", 20);
        // /mcp/register is open by default: open registration counts as anonymous, 1 a minute (SPEC Limits)
        assertLimit("/mcp/register", 1);
        assertThat(post(warden, "/oauth/token", "{}").status())
                .as("one OAuth token counter for both mounts")
                .isEqualTo(429);
        assertThat(post(warden, "/oauth/register", "{}").status())
                .as("one registration counter for both mounts")
                .isEqualTo(429);
    }

    static void assertLimit(String path, int limit) {
        for (int i = 0; i < limit; i++) {
            assertThat(post(warden, path, "{}").status())
                    .as(path + " request " + (i + 1))
                    .isNotEqualTo(429);
        }
        Http.Response limited = post(warden, path, "{}");
        assertThat(limited.status()).as(path).isEqualTo(429);
        assertThat(limited.json().get("error").get("details").get("limit").asInt())
                .isEqualTo(limit);
    }

    @Test
    void pathSpellingsThatReachSignInAreLimitedToo() {
        for (int i = 0; i < 10; i++) {
            post(warden, "/auth/sign-in", BAD_SIGN_IN);
        }

        java.net.URI base = warden.http().builder("/", null).build().uri();
        for (String variant : new String[] {
            "/auth/sign-in/",
            "/auth//sign-in",
            "//auth/sign-in",
            "/auth/./sign-in",
            "/auth/x/../sign-in",
            "/auth/sign%2Din"
        }) {
            Http.Response res = warden.http()
                    .send(HttpRequest.newBuilder(java.net.URI.create("http://" + base.getAuthority() + variant))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(BAD_SIGN_IN)));
            assertThat(res.status())
                    .as(variant + " must not reach the sign-in handler")
                    .isNotEqualTo(401);
        }
    }

    @Test
    void forwardingHeadersAreIgnoredWhenNoProxyIsTrusted() {
        for (int i = 0; i < 10; i++) {
            assertThat(postFrom(warden, "/auth/sign-in", "X-Forwarded-For", "203.0.113." + i)
                            .status())
                    .isEqualTo(401);
        }

        assertThat(postFrom(warden, "/auth/sign-in", "X-Forwarded-For", "203.0.113.99")
                        .status())
                .isEqualTo(429);
        assertThat(postFrom(warden, "/auth/sign-in", "Forwarded", "for=203.0.113.98")
                        .status())
                .isEqualTo(429);
    }

    @Test
    void behindATrustedProxyEachClientHasItsOwnCounterTakenFromTheRightMostUntrustedHop() {
        for (int i = 0; i < 10; i++) {
            postFrom(behindProxy, "/auth/sign-in", "X-Forwarded-For", "198.51.100." + i + ", 203.0.113.1");
        }

        assertThat(postFrom(behindProxy, "/auth/sign-in", "X-Forwarded-For", "203.0.113.1")
                        .status())
                .as("a forged left-most hop does not give a fresh counter")
                .isEqualTo(429);
        assertThat(postFrom(behindProxy, "/auth/sign-in", "X-Forwarded-For", "203.0.113.1, 127.0.0.1")
                        .status())
                .as("trusted hops are skipped")
                .isEqualTo(429);
        assertThat(postFrom(behindProxy, "/auth/sign-in", "X-Forwarded-For", "203.0.113.2")
                        .status())
                .isEqualTo(401);
        assertThat(postFrom(behindProxy, "/auth/sign-in", "Forwarded", "for=\"203.0.113.3:4711\";proto=https")
                        .status())
                .isEqualTo(401);
    }

    /**
     * Security review, finding 3: the unauthenticated routes that can make Warden fetch a client metadata document
     * (authorize) or check tokens (introspect, revoke) have per-IP limits too, with no configuration.
     */
    @Test
    void theAuthorizeIntrospectAndRevokeRoutesAreLimitedPerIp() {
        Map<String, Integer> limits = Map.of(
                "GET /oauth/authorize",
                30,
                "GET /mcp/authorize",
                0,
                "POST /oauth/introspect",
                600,
                "POST /oauth/revoke",
                60);
        for (String route :
                List.of("GET /oauth/authorize", "GET /mcp/authorize", "POST /oauth/introspect", "POST /oauth/revoke")) {
            String method = route.substring(0, route.indexOf(' '));
            String path = route.substring(route.indexOf(' ') + 1);
            for (int i = 0; i < limits.get(route); i++) {
                assertThat(send(method, path).status()).as(route + " #" + i).isNotEqualTo(429);
            }
            // The two authorize paths share one counter: /mcp/authorize is already spent.
            Http.Response limited = send(method, path);
            assertThat(limited.status()).as(route).isEqualTo(429);
            assertThat(limited.json().at("/error/details/limit").asInt())
                    .as(route)
                    .isEqualTo(route.contains("authorize") ? 30 : limits.get(route));
        }
    }

    private static Http.Response send(String method, String path) {
        return warden.http()
                .send(warden.http()
                        .builder(path + (method.equals("GET") ? "?client_id=x" : ""), null)
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .method(
                                method,
                                method.equals("GET")
                                        ? HttpRequest.BodyPublishers.noBody()
                                        : HttpRequest.BodyPublishers.ofString("client_id=x&token=y")));
    }
}
