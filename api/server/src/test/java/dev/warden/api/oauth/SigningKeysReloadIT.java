package dev.warden.api.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The signing keys' reload and rotation never hold up token requests: with a pool of five connections, more refresh
 * grants than connections arrive while reloads and rotations fall due, and each is answered. Two causes of a stall
 * were found this way: a reload in the caller, or a caller waiting for it, held the connection the reload needed
 * (the pool timed out and every token request was a 503); and a rotation, which stores the new key and reloads, ran
 * in callers that signed inside their grant's transaction, each holding one connection and waiting for another.
 * Tokens are now signed after the commit, holding no connection.
 */
class SigningKeysReloadIT {
    static final int CONCURRENT = 16;

    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b -> b.pgPoolSize(5)
            // A key signs for an hour: the clock's jumps below make a new one due every few hundred milliseconds.
            .oauth(OAuthConfig.builder().keyRotation(Duration.ofHours(1)).build())
            .rateLimit(RateLimitConfig.builder()
                    .endpoint(AuthEndpoint.OAUTH_TOKEN, 1_000_000, 60)
                    .endpoint(AuthEndpoint.SIGN_UP, 1_000, 60)
                    .endpoint(AuthEndpoint.REGISTRATION, 1_000, 60)
                    .build()));

    @Test
    void refreshGrantsArrivingWhenTheKeysReloadOrRotateAreAllAnswered() throws Exception {
        Http http = warden.http();
        OAuthDriver driver = new OAuthDriver(http);
        String client = driver.registerPublicClient();
        List<String> refreshTokens = new ArrayList<>();
        for (int i = 0; i < CONCURRENT; i++) {
            String session = driver.signUp("reload_" + i + "_" + System.nanoTime() % 100_000);
            OAuthDriver.Pkce pkce = OAuthDriver.Pkce.fresh();
            URI redirect = driver.authorize(session, OAuthDriver.request(client, pkce, "s" + i));
            Http.Response tokens =
                    driver.exchange(client, OAuthDriver.query(redirect).get("code"), pkce);
            assertThat(tokens.status()).as(tokens.body()).isEqualTo(200);
            refreshTokens.add(tokens.json().get("refresh_token").asText());
        }

        // Every caller refreshes in a loop (each refresh token rotates) while the clock jumps ten minutes every
        // 200 ms: each jump makes the loaded keys older than the reload interval (a minute), and every fifth or sixth
        // makes the signing key older than the rotation period, so reloads and rotations fall due while the pool's
        // connections are taken by the grants' transactions.
        long end = System.nanoTime() + Duration.ofSeconds(4).toNanos();
        ExecutorService callers = Executors.newFixedThreadPool(CONCURRENT);
        try {
            List<Future<List<String>>> workers = new ArrayList<>();
            for (String first : refreshTokens) {
                workers.add(callers.submit(() -> {
                    List<String> failures = new ArrayList<>();
                    String refresh = first;
                    while (System.nanoTime() < end && failures.isEmpty()) {
                        Http.Response r = driver.token(
                                Map.of("grant_type", "refresh_token", "client_id", client, "refresh_token", refresh));
                        if (r.status() != 200) {
                            failures.add(r.status() + " " + r.body());
                        } else {
                            refresh = r.json().get("refresh_token").asText();
                        }
                    }
                    return failures;
                }));
            }
            while (System.nanoTime() < end) {
                Thread.sleep(200);
                warden.clock().advance(Duration.ofMinutes(10));
            }
            for (Future<List<String>> worker : workers) {
                assertThat(worker.get()).as("answers other than 200").isEmpty();
            }
        } finally {
            callers.shutdownNow();
        }
    }
}
