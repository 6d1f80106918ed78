package dev.warden.api.users;

import static dev.warden.api.users.TestUsers.aUsername;
import static dev.warden.api.users.TestUsers.credentials;
import static dev.warden.api.users.TestUsers.signUp;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Changing one's password, and listing and ending one's sessions, through real HTTP. */
class PasswordAndSessionsIT {
    static final String PASSWORD = "correct horse battery";
    static final String NEW_PASSWORD = "a new and long passphrase";

    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b -> b.users(UsersConfig.builder()
                    .argon2(1024, 1, 1)
                    .lockout(3, Duration.ofMinutes(15), Duration.ofMinutes(15))
                    .build())
            .rateLimit(RateLimitConfig.builder()
                    .endpoint(AuthEndpoint.SIGN_IN, 10_000, 60)
                    .endpoint(AuthEndpoint.SIGN_UP, 10_000, 60)
                    .build()));

    @Test
    void changingThePasswordTakesTheCurrentOneAndEndsEveryOtherSession() throws Exception {
        Http http = warden.http();
        String name = aUsername();
        String first = signUp(http, name, PASSWORD).get("token").asText();
        String second = signIn(http, name, PASSWORD, "Phone/1.0");
        String third = signIn(http, name, PASSWORD, "Laptop <b>2.0</b>");

        JsonNode sessions = http.get("/auth/sessions", first).json().get("sessions");
        assertThat(sessions).hasSize(3);
        List<String> agents = new ArrayList<>();
        int current = 0;
        for (JsonNode s : sessions) {
            agents.add(s.path("userAgent").asText());
            current += s.get("current").asBoolean() ? 1 : 0;
            assertThat(s.get("ip").asText()).isEqualTo("127.0.0.1");
            assertThat(s.get("amr").toString()).isEqualTo("[\"pwd\"]");
            assertThat(s.get("lastUsedAt").asText()).isNotBlank();
        }
        assertThat(agents).contains("Phone/1.0", "Laptop <b>2.0</b>");
        assertThat(current).as("exactly the caller's session is current").isEqualTo(1);

        Http.Response wrong =
                change(http, first, "{\"currentPassword\":\"not it\",\"newPassword\":\"" + NEW_PASSWORD + "\"}");
        assertThat(wrong.status()).as(wrong.body()).isEqualTo(400);
        assertThat(wrong.json().at("/errors/0/field").asText()).isEqualTo("currentPassword");
        Http.Response weak =
                change(http, first, "{\"currentPassword\":\"" + PASSWORD + "\",\"newPassword\":\"short\"}");
        assertThat(weak.status()).isEqualTo(400);
        assertThat(weak.json().at("/errors/0/field").asText()).isEqualTo("newPassword");
        Http.Response neither = change(http, first, "{\"newPassword\":\"" + NEW_PASSWORD + "\"}");
        assertThat(neither.status()).isEqualTo(400);

        Http.Response changed = change(
                http, first, "{\"currentPassword\":\"" + PASSWORD + "\",\"newPassword\":\"" + NEW_PASSWORD + "\"}");
        assertThat(changed.status()).as(changed.body()).isEqualTo(200);
        assertThat(changed.json().get("sessionsEnded").asInt()).isEqualTo(2);
        assertThat(http.get("/auth/session", second).status()).isEqualTo(401);
        assertThat(http.get("/auth/session", third).status()).isEqualTo(401);
        assertThat(http.get("/auth/session", first).status())
                .as("the caller's session stays")
                .isEqualTo(200);
        assertThat(http.post("/auth/sign-in", null, credentials(name, PASSWORD)).status())
                .isEqualTo(401);
        assertThat(http.post("/auth/sign-in", null, credentials(name, NEW_PASSWORD))
                        .status())
                .isEqualTo(200);

        String userId = http.get("/auth/session", first).json().at("/user/id").asText();
        assertThat(TotpIT.awaitAudit(http, warden, userId, "admin.account.password.changed")
                        .toString())
                .doesNotContain(NEW_PASSWORD)
                .doesNotContain(PASSWORD);
    }

    @Test
    void wrongCurrentPasswordsCountAgainstTheLockoutLikeFailedSignIns() {
        Http http = warden.http();
        String name = aUsername();
        String session = signUp(http, name, PASSWORD).get("token").asText();
        for (int i = 0; i < 3; i++) {
            assertThat(change(
                                    http,
                                    session,
                                    "{\"currentPassword\":\"guess " + i + "\",\"newPassword\":\"" + NEW_PASSWORD
                                            + "\"}")
                            .status())
                    .isEqualTo(400);
        }
        assertThat(http.post("/auth/sign-in", null, credentials(name, PASSWORD)).status())
                .as("locked by three wrong guesses through the change route")
                .isEqualTo(401);
        Http.Response whileLocked = change(
                http, session, "{\"currentPassword\":\"" + PASSWORD + "\",\"newPassword\":\"" + NEW_PASSWORD + "\"}");
        assertThat(whileLocked.status())
                .as("not even the right one while locked")
                .isEqualTo(400);
        warden.clock().advance(Duration.ofMinutes(16));
        assertThat(http.post("/auth/sign-in", null, credentials(name, PASSWORD)).status())
                .as("the lock was not extended by the attempt made while locked")
                .isEqualTo(200);
    }

    @Test
    void aSessionOfOnesOwnEndsAloneOrAllTheOthersAtOnceButNobodyElses() {
        Http http = warden.http();
        String name = aUsername();
        String mine = signUp(http, name, PASSWORD).get("token").asText();
        String phone = signIn(http, name, PASSWORD, "Phone");
        String tablet = signIn(http, name, PASSWORD, "Tablet");
        String other = signUp(http, aUsername(), PASSWORD).get("token").asText();
        String otherId =
                http.get("/auth/session", other).json().at("/session/id").asText();
        String phoneId =
                http.get("/auth/session", phone).json().at("/session/id").asText();

        assertThat(delete(http, "/auth/sessions/" + otherId, mine).status())
                .as("another user's session is not found")
                .isEqualTo(404);
        assertThat(http.get("/auth/session", other).status()).isEqualTo(200);
        assertThat(delete(http, "/auth/sessions/ses_nothing", mine).status()).isEqualTo(404);
        assertThat(delete(http, "/auth/sessions/" + phoneId, mine).status()).isEqualTo(204);
        assertThat(http.get("/auth/session", phone).status()).isEqualTo(401);
        assertThat(delete(http, "/auth/sessions/" + phoneId, mine).status())
                .as("once")
                .isEqualTo(404);

        Http.Response others = http.post("/auth/sessions/revoke-others", mine);
        assertThat(others.status()).as(others.body()).isEqualTo(200);
        assertThat(others.json().get("sessionsEnded").asInt()).isEqualTo(1);
        assertThat(http.get("/auth/session", tablet).status()).isEqualTo(401);
        assertThat(http.get("/auth/session", mine).status()).isEqualTo(200);
        assertThat(http.get("/auth/sessions", mine).json().get("sessions")).hasSize(1);

        String myId = http.get("/auth/session", mine).json().at("/user/id").asText();
        String apiToken = http.post(
                        "/auth/tokens", warden.adminToken(), "{\"name\":\"ci\",\"userId\":\"" + myId + "\"}")
                .json()
                .get("token")
                .asText();
        assertThat(http.get("/auth/sessions", apiToken).status())
                .as("an API token cannot see or end sessions")
                .isEqualTo(403);
        assertThat(http.post("/auth/sessions/revoke-others", apiToken).status()).isEqualTo(403);
    }

    @Test
    void aFreshSecondFactorMayStandInForTheCurrentPassword() {
        Http http = warden.http();
        TotpIT.Enrolled erin = TotpIT.enrolled(http, warden);
        warden.clock().advance(Duration.ofSeconds(30));
        Http.Response changed = change(
                http,
                erin.session(),
                "{\"code\":\"" + TotpIT.code(warden, erin.secret()) + "\",\"newPassword\":\"" + NEW_PASSWORD + "\"}");
        assertThat(changed.status()).as(changed.body()).isEqualTo(200);
        Http.Response challenged = http.post("/auth/sign-in", null, credentials(erin.username(), NEW_PASSWORD));
        assertThat(challenged.json().get("code").asText()).isEqualTo("totp_required");
    }

    static String signIn(Http http, String name, String password, String userAgent) {
        Http.Response res = http.send(http.builder("/auth/sign-in", null)
                .header("Content-Type", "application/json")
                .header("User-Agent", userAgent)
                .POST(HttpRequest.BodyPublishers.ofString(credentials(name, password))));
        assertThat(res.status()).as(res.body()).isEqualTo(200);
        return res.json().get("token").asText();
    }

    static Http.Response change(Http http, String session, String body) {
        return http.post("/auth/change-password", session, body);
    }

    static Http.Response delete(Http http, String path, String session) {
        return http.delete(path, session);
    }
}
