package dev.warden.api.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.testing.Http;
import dev.warden.testing.MutableClock;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The reusable limiter as middleware around arbitrary routes of a plain Helidon server (SPEC Limits). */
class RateLimiterMiddlewareIT {
    static final MutableClock clock = new MutableClock();
    static final AtomicInteger handled = new AtomicInteger();
    static final RateLimitStore down = new RateLimitStore() {
        @Override
        public Decision acquire(String key, RateLimit rule) {
            throw new RateLimitStoreUnavailableException("store down (test)", null);
        }

        @Override
        public void close() {}
    };
    static WebServer server;
    static Http http;
    static RateLimiter byApiKey;

    @BeforeAll
    static void start() {
        byApiKey = RateLimiter.builder("reports")
                .limit(2)
                .window(10)
                .clock(clock)
                .keyFn(req -> req.headers()
                        .first(io.helidon.http.HeaderNames.create("X-Api-Key"))
                        .orElse("anonymous"))
                .build();
        RateLimiter perIp =
                RateLimiter.builder("ping").limit(1).window(60).clock(clock).build();
        RateLimiter closed = RateLimiter.builder("closed")
                .store(down)
                .failMode(FailMode.CLOSED)
                .build();
        RateLimiter open =
                RateLimiter.builder("open").store(down).failMode(FailMode.OPEN).build();
        HttpRouting.Builder routing = HttpRouting.builder()
                .get("/reports", byApiKey.wrap((req, res) -> {
                    handled.incrementAndGet();
                    res.send("report");
                }))
                .get("/ping", perIp.wrap((req, res) -> res.send("pong")))
                .get("/closed", closed.wrap((req, res) -> res.send("ran")))
                .get("/open", open.wrap((req, res) -> res.send("ran")));
        server = WebServer.builder()
                .host("127.0.0.1")
                .port(0)
                .routing(routing)
                .shutdownHook(false)
                .build()
                .start();
        http = new Http(URI.create("http://localhost:" + server.port()));
    }

    @AfterAll
    static void stop() {
        server.stop();
        byApiKey.close();
    }

    static Http.Response report(String key) {
        return http.send(http.builder("/reports", null).header("X-Api-Key", key).GET());
    }

    @Test
    void aRejectedRequestGetsThe429AndNeverRunsTheHandler() {
        int before = handled.get();
        assertThat(report("k1").status()).isEqualTo(200);
        assertThat(report("k1").status()).isEqualTo(200);

        Http.Response limited = report("k1");

        assertThat(limited.status()).isEqualTo(429);
        assertThat(limited.header("Retry-After")).hasValue("10");
        assertThat(limited.json().get("error").get("details").get("limit").asInt())
                .isEqualTo(2);
        assertThat(limited.json().get("error").get("details").get("window").asInt())
                .isEqualTo(10);
        assertThat(handled.get() - before).isEqualTo(2);
    }

    @Test
    void theKeyFunctionDecidesWhoSharesACounter() {
        report("k2");
        report("k2");
        assertThat(report("k2").status()).isEqualTo(429);

        assertThat(report("k3").status()).isEqualTo(200);
    }

    @Test
    void capacityComesBackWhenTheWindowHasPassed() {
        report("k4");
        report("k4");
        assertThat(report("k4").status()).isEqualTo(429);

        clock.advance(Duration.ofSeconds(10));

        assertThat(report("k4").status()).isEqualTo(200);
    }

    @Test
    void theDefaultKeyIsTheClientIp() {
        clock.advance(Duration.ofMinutes(2));
        assertThat(http.get("/ping", null).status()).isEqualTo(200);

        Http.Response again = http.send(http.builder("/ping", null)
                .header("X-Forwarded-For", "203.0.113.5")
                .GET());

        assertThat(again.status())
                .as("a forwarding header does not change the key")
                .isEqualTo(429);
    }

    @Test
    void whenTheStoreIsDownAClosedLimiterAnswers503AndAnOpenOneAdmits() {
        Http.Response closed = http.get("/closed", null);
        assertThat(closed.status()).isEqualTo(503);
        assertThat(closed.header("Retry-After")).hasValue("1");
        assertThat(closed.json().get("code").asText()).isEqualTo("unavailable");
        assertThat(closed.body()).doesNotContain("ran");

        Http.Response open = http.get("/open", null);
        assertThat(open.status()).isEqualTo(200);
        assertThat(open.body()).isEqualTo("ran");
    }
}
