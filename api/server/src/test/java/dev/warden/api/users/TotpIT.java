package dev.warden.api.users;

import static dev.warden.api.users.TestUsers.aUsername;
import static dev.warden.api.users.TestUsers.credentials;
import static dev.warden.api.users.TestUsers.signUp;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.api.oauth.OAuthConfig;
import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.api.users.totp.Base32;
import dev.warden.api.users.totp.Totp;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.net.http.HttpRequest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** TOTP as a second factor through real HTTP: enrolment, the challenge of a password sign-in, codes, recovery. */
class TotpIT {
    static final String PASSWORD = "correct horse battery";

    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b -> b.users(UsersConfig.builder()
                    .argon2(1024, 1, 1)
                    .lockout(8, Duration.ofMinutes(15), Duration.ofMinutes(15))
                    .build())
            .rateLimit(RateLimitConfig.builder()
                    .endpoint(AuthEndpoint.SIGN_IN, 10_000, 60)
                    .endpoint(AuthEndpoint.SIGN_UP, 10_000, 60)
                    .endpoint(AuthEndpoint.TOTP_VERIFY, 10_000, 60)
                    .build())
            .oauth(OAuthConfig.builder()
                    .keyEncryptionKey(Base64.getEncoder().encodeToString(new byte[32]))
                    .build()));

    /** A user with a confirmed TOTP: name, secret, recovery codes, and a session. */
    record Enrolled(String username, byte[] secret, List<String> recoveryCodes, String session) {}

    @Test
    void enrolmentCompletesOnlyWithAValidCodeAndHandsOutTenRecoveryCodesOnce() {
        Http http = warden.http();
        String session = signUp(http, aUsername(), PASSWORD).get("token").asText();

        assertThat(http.get("/auth/totp", session).json().get("enrolled").asBoolean())
                .isFalse();
        Http.Response first = http.post("/auth/totp/enrol", session);
        assertThat(first.status()).as(first.body()).isEqualTo(201);
        assertThat(first.header("Cache-Control")).hasValue("no-store");
        String secret = first.json().get("secret").asText();
        assertThat(secret).matches("[A-Z2-7]{32}");
        assertThat(first.json().get("otpauthUri").asText())
                .startsWith("otpauth://totp/Warden%3A")
                .contains("secret=" + secret)
                .contains("issuer=Warden")
                .contains("digits=6")
                .contains("period=30");
        assertThat(first.json().get("qrSvg").asText()).startsWith("<svg");

        // Enrolling again before confirming starts over with a new secret: the first one is no longer good.
        String second =
                http.post("/auth/totp/enrol", session).json().get("secret").asText();
        assertThat(second).isNotEqualTo(secret);
        Http.Response stale = confirm(http, session, code(Base32.decode(secret)));
        assertThat(stale.status()).as(stale.body()).isEqualTo(400);
        assertThat(stale.json().at("/errors/0/field").asText()).isEqualTo("code");
        assertThat(http.get("/auth/totp", session).json().get("enrolled").asBoolean())
                .isFalse();

        Http.Response confirmed = confirm(http, session, code(Base32.decode(second)));
        assertThat(confirmed.status()).as(confirmed.body()).isEqualTo(200);
        assertThat(confirmed.header("Cache-Control")).hasValue("no-store");
        List<String> codes = new ArrayList<>();
        confirmed.json().get("recoveryCodes").forEach(c -> codes.add(c.asText()));
        assertThat(codes).hasSize(10).doesNotHaveDuplicates();

        JsonNode status = http.get("/auth/totp", session).json();
        assertThat(status.get("enrolled").asBoolean()).isTrue();
        assertThat(status.get("recoveryCodesLeft").asInt()).isEqualTo(10);
        Http.Response again = http.post("/auth/totp/enrol", session);
        assertThat(again.status()).isEqualTo(409);
        assertThat(again.json().get("code").asText()).isEqualTo("already_enrolled");
        Http.Response reconfirm = confirm(http, session, code(Base32.decode(second)));
        assertThat(reconfirm.json().get("code").asText()).isEqualTo("already_enrolled");
    }

    @Test
    void anEnrolledUsersPasswordGetsAChallengeThatACurrentCodeAnswersOnce() {
        Http http = warden.http();
        Enrolled alice = enrolled(http);

        Http.Response signIn = http.post("/auth/sign-in", null, credentials(alice.username(), PASSWORD));
        assertThat(signIn.status()).as(signIn.body()).isEqualTo(401);
        assertThat(signIn.json().get("code").asText()).isEqualTo("totp_required");
        assertThat(signIn.header("Set-Cookie")).isEmpty();
        assertThat(signIn.json().has("token")).isFalse();
        String challenge = signIn.json().get("challenge").asText();
        assertThat(challenge).startsWith("wdn_chl_");
        assertThat(signIn.json().get("challengeExpiresAt").asText()).isNotBlank();
        assertThat(http.get("/auth/session", challenge).status())
                .as("a challenge is no credential")
                .isEqualTo(401);

        Http.Response wrong = verify(http, challenge, "code", wrongCode(alice.secret()));
        assertThat(wrong.status()).isEqualTo(401);
        assertThat(wrong.json().get("code").asText()).isEqualTo("totp_invalid");

        // The code of the confirmation's step was used up by it: the next step's code signs in.
        warden.clock().advance(Duration.ofSeconds(30));
        String code = code(alice.secret());
        Http.Response ok = verify(http, challenge, "code", code);
        assertThat(ok.status()).as(ok.body()).isEqualTo(200);
        String token = ok.json().get("token").asText();
        assertThat(token).startsWith("wdn_ses_");
        assertThat(ok.header("Set-Cookie").orElseThrow()).startsWith("warden_session=" + token);
        assertThat(http.get("/auth/session", token).json().at("/session/amr").toString())
                .isEqualTo("[\"pwd\",\"otp\",\"mfa\"]");
        assertThat(http.get("/auth/session", alice.session())
                        .json()
                        .at("/session/amr")
                        .toString())
                .as("the sign-up session was a password alone")
                .isEqualTo("[\"pwd\"]");

        assertThat(verify(http, challenge, "code", code).status())
                .as("a challenge is good once")
                .isEqualTo(401);
        String next = challenge(http, alice.username());
        Http.Response reused = verify(http, next, "code", code);
        assertThat(reused.status()).as("a code is good once").isEqualTo(401);
        assertThat(reused.json().get("code").asText()).isEqualTo("totp_invalid");
    }

    @Test
    void aRecoveryCodeSignsInOnceAndAChallengeIsSpentAfterFiveWrongAnswers() {
        Http http = warden.http();
        Enrolled bob = enrolled(http);
        String recovery = bob.recoveryCodes().get(3);

        Http.Response ok = verify(http, challenge(http, bob.username()), "recoveryCode", recovery.toUpperCase());
        assertThat(ok.status()).as(ok.body()).isEqualTo(200);
        assertThat(http.get("/auth/totp", bob.session())
                        .json()
                        .get("recoveryCodesLeft")
                        .asInt())
                .isEqualTo(9);
        assertThat(verify(http, challenge(http, bob.username()), "recoveryCode", recovery)
                        .status())
                .as("a recovery code is good once")
                .isEqualTo(401);

        String challenge = challenge(http, bob.username());
        for (int i = 0; i < 5; i++) {
            assertThat(verify(http, challenge, "code", wrongCode(bob.secret())).status())
                    .isEqualTo(401);
        }
        warden.clock().advance(Duration.ofSeconds(30));
        assertThat(verify(http, challenge, "code", code(bob.secret())).status())
                .as("spent after five wrong answers, even for a right one")
                .isEqualTo(401);

        Http.Response late = verify(http, challenge(http, bob.username()), "code", "123456");
        assertThat(late.status()).isEqualTo(401);
        String expired = challenge(http, bob.username());
        warden.clock().advance(Duration.ofMinutes(6));
        assertThat(verify(http, expired, "code", code(bob.secret())).status())
                .as("a challenge lasts five minutes")
                .isEqualTo(401);
    }

    @Test
    void removingTotpTakesAFreshSecondFactorAndThenThePasswordSignsInAlone() {
        Http http = warden.http();
        Enrolled carol = enrolled(http);

        Http.Response refused = remove(http, carol.session(), "code", wrongCode(carol.secret()));
        assertThat(refused.status()).as(refused.body()).isEqualTo(400);
        Http.Response both = remove(http, carol.session(), null, null);
        assertThat(both.status()).isEqualTo(400);

        warden.clock().advance(Duration.ofSeconds(30));
        Http.Response removed = remove(http, carol.session(), "code", code(carol.secret()));
        assertThat(removed.status()).as(removed.body()).isEqualTo(204);
        assertThat(http.get("/auth/totp", carol.session())
                        .json()
                        .get("enrolled")
                        .asBoolean())
                .isFalse();
        Http.Response signIn = http.post("/auth/sign-in", null, credentials(carol.username(), PASSWORD));
        assertThat(signIn.status()).as(signIn.body()).isEqualTo(200);
        assertThat(remove(http, carol.session(), "code", "123456").status()).isEqualTo(404);
    }

    @Test
    void theSecretIsSealedAtRestAndNoCodeOrSecretReachesTheAuditLog() throws Exception {
        Http http = warden.http();
        Enrolled dave = enrolled(http);
        String base32 = Base32.encode(dave.secret());

        try (Connection conn = DriverManager.getConnection(warden.infra().jdbcUrl());
                Statement st = conn.createStatement()) {
            st.execute(
                    "SET search_path TO " + warden.config().postgres().schema().orElseThrow());
            try (ResultSet rs = st.executeQuery("SELECT secret FROM user_totp")) {
                while (rs.next()) {
                    assertThat(rs.getString(1)).doesNotContain(base32);
                }
            }
            try (ResultSet rs = st.executeQuery("SELECT count(*) FROM user_recovery_codes")) {
                rs.next();
                assertThat(rs.getInt(1)).isGreaterThanOrEqualTo(10);
            }
        }
        String userId =
                http.get("/auth/session", dave.session()).json().at("/user/id").asText();
        JsonNode entries = awaitAudit(http, userId, "admin.account.totp.enrolled");
        assertThat(entries.toString())
                .doesNotContain(base32)
                .doesNotContain(dave.recoveryCodes().getFirst());
    }

    /** Signs up a user and confirms a TOTP for them. */
    static Enrolled enrolled(Http http) {
        return enrolled(http, warden);
    }

    /** Signs up a user on {@code platform} and confirms a TOTP for them. */
    static Enrolled enrolled(Http http, TestPlatform platform) {
        String username = aUsername();
        String session = signUp(http, username, PASSWORD).get("token").asText();
        byte[] secret = Base32.decode(
                http.post("/auth/totp/enrol", session).json().get("secret").asText());
        Http.Response confirmed = confirm(http, session, code(platform, secret));
        assertThat(confirmed.status()).as(confirmed.body()).isEqualTo(200);
        List<String> codes = new ArrayList<>();
        confirmed.json().get("recoveryCodes").forEach(c -> codes.add(c.asText()));
        return new Enrolled(username, secret, codes, session);
    }

    /** A password sign-in's challenge. */
    static String challenge(Http http, String username) {
        Http.Response res = http.post("/auth/sign-in", null, credentials(username, PASSWORD));
        assertThat(res.status()).as(res.body()).isEqualTo(401);
        return res.json().get("challenge").asText();
    }

    static String code(byte[] secret) {
        return code(warden, secret);
    }

    /** The current code on {@code platform}'s clock. */
    static String code(TestPlatform platform, byte[] secret) {
        return Totp.code(secret, Totp.step(platform.clock().instant()));
    }

    /** A code that is right for no step of the window. */
    static String wrongCode(byte[] secret) {
        long step = Totp.step(warden.clock().instant());
        for (int n = 0; ; n++) {
            String candidate = String.format("%06d", n);
            boolean anyStep = false;
            for (long s = step - 1; s <= step + 1; s++) {
                anyStep |= Totp.code(secret, s).equals(candidate);
            }
            if (!anyStep) {
                return candidate;
            }
        }
    }

    static Http.Response confirm(Http http, String session, String code) {
        return http.post("/auth/totp/confirm", session, "{\"code\":\"" + code + "\"}");
    }

    static Http.Response verify(Http http, String challenge, String field, String value) {
        return http.post(
                "/auth/totp/verify", null, "{\"challenge\":\"" + challenge + "\",\"" + field + "\":\"" + value + "\"}");
    }

    static Http.Response remove(Http http, String session, String field, String value) {
        String body = field == null ? "{}" : "{\"" + field + "\":\"" + value + "\"}";
        return http.send(http.builder("/auth/totp", session)
                .header("Content-Type", "application/json")
                .method("DELETE", HttpRequest.BodyPublishers.ofString(body)));
    }

    /** The audit entries of {@code action} about {@code userId}, once there is one. */
    static JsonNode awaitAudit(Http http, String userId, String action) throws InterruptedException {
        return awaitAudit(http, warden, userId, action);
    }

    /** As {@link #awaitAudit(Http, String, String)} on {@code platform}. */
    static JsonNode awaitAudit(Http http, TestPlatform platform, String userId, String action)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            JsonNode entries = http.get("/audit?limit=1000&userId=" + userId, platform.adminToken())
                    .json();
            for (JsonNode e : entries) {
                if (e.path("action").asText().equals(action)) {
                    return entries;
                }
            }
            assertThat(System.nanoTime())
                    .as(action + " never reached the audit log")
                    .isLessThan(deadline);
            Thread.sleep(100);
        }
    }
}
