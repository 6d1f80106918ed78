package dev.warden.api.users;

import static dev.warden.api.users.TestUsers.aUsername;
import static dev.warden.api.users.TestUsers.signUp;
import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import dev.warden.testing.TotpSessions;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Step-up: an area configured to ask for a second factor refuses a password-only session, then accepts a TOTP one. */
class StepUpIT {
    static final String PASSWORD = "correct horse battery";

    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b -> b.users(UsersConfig.builder()
                    .argon2(1024, 1, 1)
                    .stepUp(Set.of(UsersConfig.StepUp.ORGANIZATION_ADMIN))
                    .build())
            .rateLimit(RateLimitConfig.builder()
                    .endpoint(AuthEndpoint.SIGN_IN, 10_000, 60)
                    .endpoint(AuthEndpoint.SIGN_UP, 10_000, 60)
                    .build()));

    @Test
    void organizationAdministrationAsksForASecondFactorSession() {
        Http http = warden.http();
        String name = aUsername();
        String password = signUp(http, name, PASSWORD).get("token").asText();

        Http.Response refused = http.post("/admin/v1/organizations", password, "{\"name\":\"Acme " + name + "\"}");
        assertThat(refused.status()).as(refused.body()).isEqualTo(403);
        assertThat(refused.json().get("code").asText()).isEqualTo("step_up_required");
        assertThat(refused.json().get("detail").asText()).contains("organization administration");
        assertThat(http.get("/agents", password).status())
                .as("other areas are unchanged")
                .isEqualTo(200);

        byte[] secret = TotpSessions.enrol(http, warden.clock(), password);
        String mfa = TotpSessions.signIn(http, warden.clock(), name, PASSWORD, secret);

        Http.Response created = http.post("/admin/v1/organizations", mfa, "{\"name\":\"Acme " + name + "\"}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(http.post("/admin/v1/organizations", password, "{\"name\":\"Other " + name + "\"}")
                        .status())
                .as("the password session is still refused")
                .isEqualTo(403);
        assertThat(http.get("/admin/v1/organizations", warden.adminToken()).body())
                .as("the bootstrap administrator is not a user: no step-up")
                .doesNotContain("step_up_required");
    }
}
