package dev.warden.api.users;

import static dev.warden.api.users.TestUsers.aUsername;
import static dev.warden.api.users.TestUsers.credentials;
import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.api.oauth.OAuthConfig;
import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.api.users.totp.Base32;
import dev.warden.api.users.totp.Totp;
import dev.warden.testing.Http;
import dev.warden.testing.TestMailServer;
import dev.warden.testing.TestPlatform;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Signing in by e-mail, a link or a 6-digit code, through real HTTP and a real SMTP server (GreenMail). */
class EmailSignInIT {
    static final String PASSWORD = "correct horse battery";
    static final TestMailServer mail = TestMailServer.start();

    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b -> b.users(UsersConfig.builder()
                    .argon2(1024, 1, 1)
                    .lockout(4, Duration.ofMinutes(15), Duration.ofMinutes(15))
                    .build())
            .rateLimit(RateLimitConfig.builder()
                    .endpoint(AuthEndpoint.SIGN_IN, 10_000, 60)
                    .endpoint(AuthEndpoint.SIGN_UP, 10_000, 60)
                    .endpoint(AuthEndpoint.MAGIC_LINK, 10_000, 60)
                    .endpoint(AuthEndpoint.EMAIL_OTP, 10_000, 60)
                    .endpoint(AuthEndpoint.EMAIL_CHANGE, 10_000, 60)
                    .endpoint(AuthEndpoint.TOTP_VERIFY, 10_000, 60)
                    .build())
            .oauth(OAuthConfig.builder()
                    .keyEncryptionKey(Base64.getEncoder().encodeToString(new byte[32]))
                    .build())
            .mail(mail.config()));

    @AfterAll
    static void stopMail() {
        mail.close();
    }

    @Test
    void aSignInLinkSignsInOnceAndAnUnknownAddressGetsTheSameAnswerAndNoMail() throws Exception {
        Http http = warden.http();
        String address = EmailITSupport.address();
        String name = aUsername();
        EmailITSupport.verified(http, mail, name, address, PASSWORD);

        int before = mail.received().size();
        Http.Response unknown = http.post("/auth/magic-link", null, "{\"email\":\"" + EmailITSupport.address() + "\"}");
        Http.Response known = http.post("/auth/magic-link", null, "{\"email\":\"" + address + "\"}");
        assertThat(unknown.status()).isEqualTo(202);
        assertThat(known.status()).isEqualTo(202);
        assertThat(known.body()).isEqualTo(unknown.body());
        TestMailServer.Parts parts = TestMailServer.parts(mail.await(address, 2, Duration.ofSeconds(20)));
        String token = parts.token().orElseThrow();
        assertThat(parts.text()).contains("/auth/magic-link?token=" + token);
        Thread.sleep(300);
        assertThat(mail.received()).hasSize(before + 1);

        Http.Response page = http.get("/auth/magic-link?token=" + token, null);
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.body()).as("the link only shows a button").contains("<form method=\"post\"");

        Http.Response signedIn = http.post("/auth/magic-link/verify", null, "{\"token\":\"" + token + "\"}");
        assertThat(signedIn.status()).as(signedIn.body()).isEqualTo(200);
        String session = signedIn.json().get("token").asText();
        assertThat(http.get("/auth/session", session).json().at("/session/amr").toString())
                .isEqualTo("[\"otp\"]");
        Http.Response again = http.post("/auth/magic-link/verify", null, "{\"token\":\"" + token + "\"}");
        assertThat(again.status()).isEqualTo(401);
        assertThat(again.json().get("code").asText()).isEqualTo("sign_in_link_invalid");

        http.post("/auth/magic-link", null, "{\"email\":\"" + address + "\"}");
        String late = TestMailServer.parts(mail.await(address, 3, Duration.ofSeconds(20)))
                .token()
                .orElseThrow();
        warden.clock().advance(Duration.ofMinutes(11));
        assertThat(http.post("/auth/magic-link/verify", null, "{\"token\":\"" + late + "\"}")
                        .status())
                .as("ten minutes")
                .isEqualTo(401);
    }

    @Test
    void aSignInLinkFromThePageSetsTheSessionCookie() throws Exception {
        Http http = warden.http();
        String address = EmailITSupport.address();
        EmailITSupport.verified(http, mail, aUsername(), address, PASSWORD);
        http.post("/auth/magic-link", null, "{\"email\":\"" + address + "\"}");
        String token = TestMailServer.parts(mail.await(address, 2, Duration.ofSeconds(20)))
                .token()
                .orElseThrow();
        Http.Response page = http.send(http.builder("/auth/magic-link/verify", null)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("token=" + token)));
        assertThat(page.status()).as(page.body()).isEqualTo(200);
        assertThat(page.header("Set-Cookie").orElseThrow()).startsWith("warden_session=wdn_ses_");
    }

    @Test
    void anEmailCodeSignsInOnceAndWrongCodesSpendItAndCountAgainstTheLockout() throws Exception {
        Http http = warden.http();
        String address = EmailITSupport.address();
        String name = aUsername();
        EmailITSupport.verified(http, mail, name, address, PASSWORD);

        assertThat(http.post("/auth/email-otp", null, "{\"email\":\"" + address + "\"}")
                        .status())
                .isEqualTo(202);
        String code = code(TestMailServer.parts(mail.await(address, 2, Duration.ofSeconds(20)))
                .text());
        Http.Response wrong = verifyCode(http, address, code.equals("000000") ? "111111" : "000000");
        assertThat(wrong.status()).isEqualTo(401);
        assertThat(wrong.json().get("code").asText()).isEqualTo("email_code_invalid");
        Http.Response ok = verifyCode(http, address, code);
        assertThat(ok.status()).as(ok.body()).isEqualTo(200);
        assertThat(verifyCode(http, address, code).status()).as("once").isEqualTo(401);
        assertThat(verifyCode(http, EmailITSupport.address(), code)
                        .json()
                        .get("code")
                        .asText())
                .as("an unknown address answers the same")
                .isEqualTo("email_code_invalid");

        // The sign-in reset the count: four wrong codes now lock the account, and the right code then says so.
        http.post("/auth/email-otp", null, "{\"email\":\"" + address + "\"}");
        String next = code(TestMailServer.parts(mail.await(address, 3, Duration.ofSeconds(20)))
                .text());
        for (int i = 0; i < 4; i++) {
            assertThat(verifyCode(http, address, next.equals("000000") ? "111111" : "000000")
                            .status())
                    .isEqualTo(401);
        }
        Http.Response locked = verifyCode(http, address, next);
        assertThat(locked.status()).as(locked.body()).isEqualTo(423);
        assertThat(locked.json().get("code").asText()).isEqualTo("account_locked");
        assertThat(Long.parseLong(locked.header("Retry-After").orElseThrow())).isBetween(1L, 900L);
        assertThat(http.post("/auth/sign-in", null, credentials(name, PASSWORD))
                        .json()
                        .get("code")
                        .asText())
                .as("a bare password still tells nothing")
                .isEqualTo("INVALID_CREDENTIALS");
    }

    @Test
    void anEmailFirstFactorStillAsksForTotp() throws Exception {
        Http http = warden.http();
        String address = EmailITSupport.address();
        String session = EmailITSupport.verified(http, mail, aUsername(), address, PASSWORD);
        byte[] secret = Base32.decode(
                http.post("/auth/totp/enrol", session).json().get("secret").asText());
        http.post("/auth/totp/confirm", session, "{\"code\":\"" + totp(secret) + "\"}");

        http.post("/auth/email-otp", null, "{\"email\":\"" + address + "\"}");
        String code = code(TestMailServer.parts(mail.await(address, 2, Duration.ofSeconds(20)))
                .text());
        Http.Response challenged = verifyCode(http, address, code);
        assertThat(challenged.status()).isEqualTo(401);
        assertThat(challenged.json().get("code").asText()).isEqualTo("totp_required");
        warden.clock().advance(Duration.ofSeconds(30));
        Http.Response ok = http.post(
                "/auth/totp/verify",
                null,
                "{\"challenge\":\"" + challenged.json().get("challenge").asText() + "\",\"code\":\"" + totp(secret)
                        + "\"}");
        assertThat(ok.status()).as(ok.body()).isEqualTo(200);
        assertThat(http.get("/auth/session", ok.json().get("token").asText())
                        .json()
                        .at("/session/amr")
                        .toString())
                .isEqualTo("[\"otp\",\"mfa\"]");
    }

    static Http.Response verifyCode(Http http, String address, String code) {
        return http.post("/auth/email-otp/verify", null, "{\"email\":\"" + address + "\",\"code\":\"" + code + "\"}");
    }

    static String code(String text) {
        Matcher m = Pattern.compile("code is (\\d{6})").matcher(text);
        assertThat(m.find()).as(text).isTrue();
        return m.group(1);
    }

    static String totp(byte[] secret) {
        return Totp.code(secret, Totp.step(warden.clock().instant()));
    }
}
