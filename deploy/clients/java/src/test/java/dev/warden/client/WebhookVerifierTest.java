package dev.warden.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Standard Webhooks verification: the specification's published example, and every way a delivery is refused. */
class WebhookVerifierTest {
    // The example of the Standard Webhooks specification (standard-webhooks.md, "Signature scheme")
    static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    static final String ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    static final long TIMESTAMP = 1614265330;
    static final byte[] BODY = "{\"test\": 2432232314}".getBytes(StandardCharsets.UTF_8);
    static final String SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

    static WebhookVerifier at(long epochSecond) {
        return new WebhookVerifier(
                SECRET, Duration.ofMinutes(5), Clock.fixed(Instant.ofEpochSecond(epochSecond), ZoneOffset.UTC));
    }

    static Map<String, String> headers(String signature, long timestamp) {
        return Map.of("Webhook-Id", ID, "webhook-timestamp", Long.toString(timestamp), "webhook-signature", signature);
    }

    @Test
    void theSpecificationsExampleVerifiesAmongOtherSignaturesInAnyHeaderCase() throws Exception {
        assertThat(at(TIMESTAMP).signature(ID, TIMESTAMP, BODY)).isEqualTo(SIGNATURE);
        assertThat(at(TIMESTAMP + 60)
                        .verify(headers("v2,abc v1,AAAA " + SIGNATURE, TIMESTAMP), BODY)
                        .path("test")
                        .asLong())
                .isEqualTo(2432232314L);
    }

    @Test
    void aTamperedBodyAnotherSecretOrATimestampOutsideTheToleranceIsRefused() {
        byte[] tampered = "{\"test\": 2432232315}".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> at(TIMESTAMP).verify(headers(SIGNATURE, TIMESTAMP), tampered))
                .hasMessageContaining("no signature matches");
        WebhookVerifier other = new WebhookVerifier("whsec_" + "b3RoZXI=");
        assertThatThrownBy(() -> other.verify(headers(SIGNATURE, TIMESTAMP), BODY))
                .isInstanceOf(WebhookVerifier.InvalidSignatureException.class);
        assertThatThrownBy(() -> at(TIMESTAMP + 301).verify(headers(SIGNATURE, TIMESTAMP), BODY))
                .hasMessageContaining("too old");
        assertThatThrownBy(() -> at(TIMESTAMP - 301).verify(headers(SIGNATURE, TIMESTAMP), BODY))
                .hasMessageContaining("future");
        assertThatThrownBy(() -> at(TIMESTAMP).verify(Map.of("webhook-id", ID), BODY))
                .hasMessageContaining("missing header webhook-timestamp");
        assertThatThrownBy(() -> new WebhookVerifier("not-a-secret")).hasMessageContaining("whsec_");
    }
}
