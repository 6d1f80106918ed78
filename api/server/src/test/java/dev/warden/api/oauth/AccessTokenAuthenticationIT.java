package dev.warden.api.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.api.users.UsersConfig;
import dev.warden.api.users.totp.Base32;
import dev.warden.api.users.totp.Totp;
import dev.warden.pipeline.contract.Json;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Access tokens say how their user signed in: RFC 8176 {@code amr} and {@code auth_time}, through a refresh too. */
class AccessTokenAuthenticationIT {
    static final String PASSWORD = "a long enough password";

    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(
            b -> b.users(UsersConfig.builder().argon2(1024, 1, 1).build())
                    .rateLimit(RateLimitConfig.builder()
                            .endpoint(AuthEndpoint.SIGN_IN, 10_000, 60)
                            .endpoint(AuthEndpoint.SIGN_UP, 10_000, 60)
                            .endpoint(AuthEndpoint.REGISTRATION, 1_000, 60)
                            .build()));

    @Test
    void aPasswordSessionsTokenSaysPwdAndWhenTheSessionSignedIn() throws Exception {
        Http http = warden.http();
        OAuthDriver driver = new OAuthDriver(http);
        String session = driver.signUp("amr_" + UUID.randomUUID().toString().substring(0, 8));
        Instant signedIn = Instant.parse(http.get("/auth/session", session)
                .json()
                .at("/session/createdAt")
                .asText());

        JsonNode tokens = tokens(driver, session);
        JsonNode claims = claims(tokens.get("access_token").asText());
        assertThat(claims.get("amr").toString()).isEqualTo("[\"pwd\"]");
        assertThat(claims.get("auth_time").asLong()).isEqualTo(signedIn.getEpochSecond());

        JsonNode refreshed = driver.token(Map.of(
                        "grant_type", "refresh_token",
                        "refresh_token", tokens.get("refresh_token").asText(),
                        "client_id", tokens.get("client_id_used").asText()))
                .json();
        JsonNode again = claims(refreshed.get("access_token").asText());
        assertThat(again.get("amr").toString()).as("kept through a refresh").isEqualTo("[\"pwd\"]");
        assertThat(again.get("auth_time").asLong()).isEqualTo(signedIn.getEpochSecond());
    }

    @Test
    void aSecondFactorSessionsTokenSaysMfa() throws Exception {
        Http http = warden.http();
        OAuthDriver driver = new OAuthDriver(http);
        String name = "mfa_" + UUID.randomUUID().toString().substring(0, 8);
        String first = driver.signUp(name);
        byte[] secret = Base32.decode(
                http.post("/auth/totp/enrol", first).json().get("secret").asText());
        http.post("/auth/totp/confirm", first, "{\"code\":\"" + code(secret) + "\"}");
        String challenge = http.post(
                        "/auth/sign-in", null, "{\"username\":\"" + name + "\",\"password\":\"" + PASSWORD + "\"}")
                .json()
                .get("challenge")
                .asText();
        warden.clock().advance(Duration.ofSeconds(30));
        String session = http.post(
                        "/auth/totp/verify",
                        null,
                        "{\"challenge\":\"" + challenge + "\",\"code\":\"" + code(secret) + "\"}")
                .json()
                .get("token")
                .asText();

        JsonNode claims = claims(tokens(driver, session).get("access_token").asText());
        assertThat(claims.get("amr").toString()).isEqualTo("[\"pwd\",\"otp\",\"mfa\"]");
    }

    /** A code flow with {@code session}; the token response, plus the client id under {@code client_id_used}. */
    static JsonNode tokens(OAuthDriver driver, String session) {
        String client = driver.registerPublicClient();
        OAuthDriver.Pkce pkce = OAuthDriver.Pkce.fresh();
        URI back = driver.authorize(session, OAuthDriver.request(client, pkce, "s"));
        Http.Response token = driver.exchange(client, OAuthDriver.query(back).get("code"), pkce);
        assertThat(token.status()).as(token.body()).isEqualTo(200);
        return ((com.fasterxml.jackson.databind.node.ObjectNode) token.json()).put("client_id_used", client);
    }

    static JsonNode claims(String jwt) throws Exception {
        String payload = jwt.split("\\.")[1];
        return Json.mapper().readTree(new String(Base64.getUrlDecoder().decode(payload), StandardCharsets.UTF_8));
    }

    static String code(byte[] secret) {
        return Totp.code(secret, Totp.step(warden.clock().instant()));
    }
}
