package dev.warden.api.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.api.users.UsersConfig;
import dev.warden.launcher.WardenPlatform;
import dev.warden.testing.Http;
import dev.warden.testing.MutableClock;
import dev.warden.testing.TestPlatform;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Shared counters in the real Redis ({@code WARDEN_TEST_REDIS_URL}, default {@code redis://127.0.0.1:6379}):
 * two Warden instances enforce one limit together, the Lua script is atomic under concurrency, and a dead
 * Redis makes each endpoint fail open or closed as documented.
 */
class RedisRateLimitIT {
    static final String REDIS = System.getenv().getOrDefault("WARDEN_TEST_REDIS_URL", "redis://127.0.0.1:6379");
    static final String PREFIX = "warden-it:" + UUID.randomUUID() + ":";
    static final String BAD_SIGN_IN = "{\"username\":\"nobody_here\",\"password\":\"whatever-it-is\"}";

    @RegisterExtension
    static final TestPlatform first = new TestPlatform(b -> b.roles("api")
            .users(UsersConfig.builder().argon2(1024, 1, 1).build())
            .rateLimit(RateLimitConfig.builder()
                    .store(StoreKind.REDIS)
                    .redisUrl(REDIS)
                    .redisKeyPrefix(PREFIX)
                    .build()));

    /** Redis on a port where nothing listens. */
    @RegisterExtension
    static final TestPlatform redisDown = new TestPlatform(b -> b.roles("api")
            .users(UsersConfig.builder().argon2(1024, 1, 1).build())
            .rateLimit(RateLimitConfig.builder()
                    .store(StoreKind.REDIS)
                    .redisUrl("redis://127.0.0.1:1")
                    .redisTimeout(Duration.ofMillis(100))
                    .build()));

    static WardenPlatform second;
    static Http a;
    static Http b;

    @BeforeAll
    static void startSecondInstance() {
        second = first.startAnother("b");
        a = first.http();
        b = new Http(second.baseUri());
    }

    @AfterAll
    static void stop() {
        second.close();
    }

    @BeforeEach
    void freshWindow() {
        first.clock().advance(Duration.ofMinutes(2));
    }

    @Test
    void twoInstancesEnforceOneSharedLimit() {
        for (int i = 0; i < 10; i++) {
            assertThat((i % 2 == 0 ? a : b)
                            .post("/auth/sign-in", null, BAD_SIGN_IN)
                            .status())
                    .isEqualTo(401);
        }

        Http.Response onA = a.post("/auth/sign-in", null, BAD_SIGN_IN);
        Http.Response onB = b.post("/auth/sign-in", null, BAD_SIGN_IN);

        assertThat(onA.status()).isEqualTo(429);
        assertThat(onB.status()).isEqualTo(429);
        assertThat(onB.json().get("error").get("details").get("limit").asInt()).isEqualTo(10);
    }

    @Test
    void retryAfterIsTheSameWhicheverInstanceAnswers() {
        for (int i = 0; i < 5; i++) {
            a.post("/auth/sign-up", null, "{}");
        }
        first.clock().advance(Duration.ofSeconds(15));

        assertThat(b.post("/auth/sign-up", null, "{}").header("Retry-After")).hasValue("45");
        assertThat(a.post("/auth/sign-up", null, "{}").header("Retry-After")).hasValue("45");
    }

    @Test
    void concurrentAcquisitionsThroughTwoStoresNeverExceedTheLimit() throws Exception {
        MutableClock clock = new MutableClock();
        RateLimit limit = RateLimit.perMinute(25);
        List<Future<Boolean>> results = new ArrayList<>();
        try (RedisRateLimitStore one = new RedisRateLimitStore(REDIS, PREFIX, Duration.ofSeconds(2), clock);
                RedisRateLimitStore two = new RedisRateLimitStore(REDIS, PREFIX, Duration.ofSeconds(2), clock);
                ExecutorService pool = Executors.newFixedThreadPool(16)) {
            for (int i = 0; i < 200; i++) {
                RedisRateLimitStore store = i % 2 == 0 ? one : two;
                results.add(pool.submit(() -> store.acquire("concurrent", limit).allowed()));
            }
            int admitted = 0;
            for (Future<Boolean> r : results) {
                admitted += r.get() ? 1 : 0;
            }

            assertThat(admitted).isEqualTo(25);
            clock.advance(Duration.ofSeconds(61));
            assertThat(one.acquire("concurrent", limit).remaining()).isEqualTo(24);
        }
    }

    @Test
    void withRedisDownSignInFailsOpenAndSignUpFailsClosed() {
        Http http = redisDown.http();
        for (int i = 0; i < 15; i++) {
            Http.Response res = http.post("/auth/sign-in", null, BAD_SIGN_IN);
            assertThat(res.status())
                    .as("sign-in fails open: the account lockout still guards passwords")
                    .isEqualTo(401);
        }

        Http.Response signUp = http.post(
                "/auth/sign-up",
                null,
                "{\"username\":\"closed_" + System.nanoTime() + "\",\"password\":\"long enough password\"}");

        assertThat(signUp.status()).isEqualTo(503);
        assertThat(signUp.json().get("code").asText()).isEqualTo("unavailable");
        assertThat(signUp.header("Retry-After")).hasValue("1");
    }
}
