package dev.warden.api.users;

import static dev.warden.api.users.TestUsers.aUsername;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.launcher.WardenPlatform;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import dev.warden.testing.TotpSessions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The first-run setup token over HTTP: it creates the first administrator, who must enrol a second factor before
 * the setup completes; administrator sessions need that factor; the bootstrap token can then be turned off, and the
 * doctor says so. A second, fresh installation shows the token's expiry with an injected clock.
 */
class FirstRunSetupIT {
    static final String PASSWORD = "a long enough password";

    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(
            b -> b.users(UsersConfig.builder().argon2(1024, 1, 1).build())
                    .rateLimit(RateLimitConfig.builder()
                            .endpoint(AuthEndpoint.SETUP, 100, 60)
                            .build()));

    @RegisterExtension
    static final TestPlatform fresh = new TestPlatform(
            b -> b.users(UsersConfig.builder().argon2(1024, 1, 1).build()));

    @Test
    void theSetupTokenCreatesTheFirstAdministratorWhoMustEnrolASecondFactor() throws Exception {
        Http http = warden.http();
        String setupToken = warden.setupToken().orElseThrow();
        assertThat(setupToken).startsWith("wdn_stp_");
        String name = aUsername();

        Http.Response wrong = setUp(http, "wdn_stp_not-the-token", name);
        assertThat(wrong.status()).isEqualTo(401);
        assertThat(wrong.json().get("code").asText()).isEqualTo("setup_token_invalid");
        assertThat(http.post("/auth/sign-in", null, TestUsers.credentials(name, PASSWORD))
                        .status())
                .as("a refused setup creates no account")
                .isEqualTo(401);
        Http.Response weak = http.post(
                "/auth/setup",
                null,
                "{\"setupToken\":\"" + setupToken + "\",\"username\":\"" + name + "\",\"password\":\"short\"}");
        assertThat(weak.status()).isEqualTo(400);
        assertThat(weak.json().at("/errors/0/field").asText()).isEqualTo("password");

        Http.Response created = setUp(http, setupToken, name);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String session = created.json().get("token").asText();
        assertThat(setUp(http, setupToken, aUsername()).json().get("code").asText())
                .as("the token is claimed by the first setup")
                .isEqualTo("setup_token_invalid");

        Http.Response early = complete(http, session, setupToken);
        assertThat(early.status()).as("no second factor yet").isEqualTo(409);
        assertThat(http.post("/auth/admin-session", session, "{}").status()).isEqualTo(403);

        byte[] secret = TotpSessions.enrol(http, warden.clock(), session);
        Http.Response done = complete(http, session, setupToken);
        assertThat(done.status()).as(done.body()).isEqualTo(200);
        assertThat(done.json().get("administrator").asBoolean()).isTrue();
        assertThat(complete(http, session, setupToken).json().get("code").asText())
                .as("used once")
                .isEqualTo("setup_token_invalid");

        Http.Response oneFactor = http.post("/auth/admin-session", session, "{}");
        assertThat(oneFactor.status()).isEqualTo(403);
        assertThat(oneFactor.json().get("code").asText()).isEqualTo("step_up_required");

        String strong = TotpSessions.signIn(http, warden.clock(), name, PASSWORD, secret);
        Http.Response started = http.post("/auth/admin-session", strong, "{}");
        assertThat(started.status()).as(started.body()).isEqualTo(201);
        String admin = started.json().get("token").asText();
        assertThat(admin).startsWith("wdn_ads_");
        assertThat(http.get("/admin/v1/doctor", strong).status())
                .as("the person's own session is not the administrator")
                .isEqualTo(403);
        JsonNode report = http.get("/admin/v1/doctor", admin).json();
        assertThat(report.toString()).contains("bootstrap-token-still-on");

        String someone =
                TestUsers.signUp(http, aUsername(), PASSWORD).get("token").asText();
        assertThat(http.post("/auth/admin-session", someone, "{}").status())
                .as("not an administrator")
                .isEqualTo(403);

        // Another start of this installation: an administrator exists, so no setup token; with the bootstrap turned
        // off, the static token is refused and the doctor says it is off.
        try (WardenPlatform off =
                warden.startAnother("off", b -> b.bootstrapEnabled(false).roles("api"))) {
            Http other = new Http(off.baseUri());
            assertThat(off.setupToken()).isEmpty();
            assertThat(other.get("/agents", off.adminToken()).status()).isEqualTo(401);
            JsonNode offReport = other.get("/admin/v1/doctor", admin).json();
            assertThat(offReport.toString()).contains("bootstrap-token-off").doesNotContain("bootstrap-token-still-on");
        }

        assertThat(http.post("/auth/sign-out", strong).status()).isEqualTo(204);
        assertThat(http.get("/admin/v1/doctor", admin).status())
                .as("the administrator session ends with the session it came from")
                .isEqualTo(401);
    }

    @Test
    void aSetupTokenExpiresAfterADayAndGuessesAreLimited() {
        String setupToken = fresh.setupToken().orElseThrow();
        fresh.clock().advance(Duration.ofHours(24).plusSeconds(1));
        Http.Response late = setUp(fresh.http(), setupToken, aUsername());
        assertThat(late.status()).isEqualTo(401);
        assertThat(late.json().get("code").asText()).isEqualTo("setup_token_invalid");
        for (int i = 0; i < 4; i++) {
            assertThat(setUp(fresh.http(), "wdn_stp_guess" + i, aUsername()).status())
                    .isEqualTo(401);
        }
        assertThat(setUp(fresh.http(), "wdn_stp_guess", aUsername()).status())
                .as("5 a minute per IP")
                .isEqualTo(429);
    }

    private static Http.Response setUp(Http http, String token, String name) {
        return http.post(
                "/auth/setup",
                null,
                "{\"setupToken\":\"" + token + "\",\"username\":\"" + name + "\",\"password\":\"" + PASSWORD + "\"}");
    }

    private static Http.Response complete(Http http, String session, String token) {
        return http.post("/auth/setup/complete", session, "{\"setupToken\":\"" + token + "\"}");
    }
}
