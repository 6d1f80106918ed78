package dev.warden.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.api.users.totp.Base32;
import dev.warden.api.users.totp.Totp;
import dev.warden.pipeline.contract.Json;
import java.time.Duration;

/** A user with TOTP over HTTP: enrolling it, and signing in with the password and then a code. */
public final class TotpSessions {
    private TotpSessions() {}

    /** Enrols and confirms TOTP for the user of {@code session}; returns the secret. */
    public static byte[] enrol(Http http, MutableClock clock, String session) {
        byte[] secret = Base32.decode(
                http.post("/auth/totp/enrol", session).json().get("secret").asText());
        Http.Response confirmed =
                http.post("/auth/totp/confirm", session, "{\"code\":\"" + code(clock, secret) + "\"}");
        assertThat(confirmed.status()).as(confirmed.body()).isEqualTo(200);
        return secret;
    }

    /**
     * Signs in with {@code password}, then answers the {@code totp_required} challenge with the next step's code (the
     * clock moves 30 s on: the code that confirmed is never good twice); returns the session token, whose {@code amr}
     * holds {@code mfa}.
     */
    public static String signIn(Http http, MutableClock clock, String username, String password, byte[] secret) {
        String credentials = Json.mapper()
                .createObjectNode()
                .put("username", username)
                .put("password", password)
                .toString();
        Http.Response challenged = http.post("/auth/sign-in", null, credentials);
        assertThat(challenged.status()).as(challenged.body()).isEqualTo(401);
        String challenge = challenged.json().get("challenge").asText();
        clock.advance(Duration.ofSeconds(30));
        Http.Response verified = http.post(
                "/auth/totp/verify",
                null,
                "{\"challenge\":\"" + challenge + "\",\"code\":\"" + code(clock, secret) + "\"}");
        assertThat(verified.status()).as(verified.body()).isEqualTo(200);
        return verified.json().get("token").asText();
    }

    /** The current code of {@code secret} by {@code clock}. */
    public static String code(MutableClock clock, byte[] secret) {
        return Totp.code(secret, Totp.step(clock.instant()));
    }
}
