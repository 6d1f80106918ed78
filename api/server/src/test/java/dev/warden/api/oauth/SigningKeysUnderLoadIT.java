package dev.warden.api.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jwt.SignedJWT;
import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Signing keys rotate while tokens are issued and verified: with a 3-second rotation, four workers obtain tokens
 * (client credentials) and use each at once on the REST API for about ten seconds, across several key changes.
 * No token in flight fails, and every token issued during the run still verifies at the end.
 */
class SigningKeysUnderLoadIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b -> b.rateLimit(RateLimitConfig.builder()
                    .endpoint(AuthEndpoint.OAUTH_TOKEN, 1_000_000, 60)
                    .build())
            .oauth(OAuthConfig.builder().keyRotation(Duration.ofSeconds(3)).build()));

    @Test
    void noTokenInFlightFailsWhileKeysRotate() throws Exception {
        Http http = warden.http();
        Http.Response created = http.post(
                "/agents",
                warden.adminToken(),
                "{\"ownerId\":\"rotation-owner\","
                        + "\"name\":\"svc\",\"type\":\"service\",\"permissions\":[{\"resource\":\"agents\",\"actions\":[\"read\"]}]}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String id = created.json().get("id").asText();
        String secret = created.json().get("token").asText();
        assertThat(http.post("/agents/" + id + "/oauth-client", warden.adminToken())
                        .status())
                .isEqualTo(201);
        String basic =
                "Basic " + Base64.getEncoder().encodeToString((id + ":" + secret).getBytes(StandardCharsets.UTF_8));

        Set<String> kids = ConcurrentHashMap.newKeySet();
        ConcurrentLinkedQueue<String> issued = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        AtomicInteger used = new AtomicInteger();
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<?>> workers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            workers.add(pool.submit(() -> {
                while (System.nanoTime() < end) {
                    Http.Response token = http.send(http.builder("/oauth/token", null)
                            .header("Authorization", basic)
                            .header("Content-Type", "application/x-www-form-urlencoded")
                            .POST(HttpRequest.BodyPublishers.ofString("grant_type=client_credentials")));
                    if (token.status() != 200) {
                        failures.add("token " + token.status() + " " + token.body());
                        continue;
                    }
                    String access = token.json().get("access_token").asText();
                    issued.add(access);
                    try {
                        kids.add(SignedJWT.parse(access).getHeader().getKeyID());
                    } catch (java.text.ParseException e) {
                        failures.add("unparseable token");
                    }
                    Http.Response use = http.get("/agents/" + id, access);
                    if (use.status() != 200) {
                        failures.add("use " + use.status() + " " + use.body());
                    }
                    used.incrementAndGet();
                }
                return null;
            }));
        }
        for (Future<?> f : workers) {
            f.get();
        }
        pool.shutdown();

        assertThat(failures).as("failures while keys rotated").isEmpty();
        assertThat(used.get()).as("tokens issued and used").isGreaterThan(20);
        assertThat(kids).as("signing keys seen during the run").hasSizeGreaterThanOrEqualTo(3);
        // Every token of the run, whichever key signed it, still verifies.
        JsonNode jwks = http.get("/oauth/jwks", null).json();
        assertThat(jwks.get("keys").size()).isGreaterThanOrEqualTo(kids.size());
        List<String> sample = new ArrayList<>(issued);
        for (int i = 0; i < sample.size(); i += Math.max(1, sample.size() / 50)) {
            assertThat(http.get("/agents/" + id, sample.get(i)).status())
                    .as("token %d of the run", i)
                    .isEqualTo(200);
        }
    }
}
