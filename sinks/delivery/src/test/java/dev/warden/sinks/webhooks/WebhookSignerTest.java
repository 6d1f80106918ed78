package dev.warden.sinks.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class WebhookSignerTest {
    /**
     * The example of the Standard Webhooks specification and reference libraries; the expected value was also
     * computed independently with {@code openssl dgst -sha256 -mac HMAC -macopt hexkey:<key>}.
     */
    @Test
    void signatureMatchesTheStandardWebhooksKnownAnswer() {
        WebhookSigner signer = new WebhookSigner("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");

        String signature = signer.sign(
                "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330L, "{\"test\": 2432232314}".getBytes(StandardCharsets.UTF_8));

        assertThat(signature).isEqualTo("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    @Test
    void signatureChangesWithIdTimestampAndBody() {
        WebhookSigner signer = new WebhookSigner("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
        byte[] body = "{}".getBytes(StandardCharsets.UTF_8);

        assertThat(signer.sign("1", 10, body))
                .isNotEqualTo(signer.sign("2", 10, body))
                .isNotEqualTo(signer.sign("1", 11, body))
                .isNotEqualTo(signer.sign("1", 10, "{ }".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void newSecretsAreWhsecPrefixedBase64Of32RandomBytes() {
        String a = WebhookSigner.newSecret();
        String b = WebhookSigner.newSecret();

        assertThat(a).startsWith("whsec_").isNotEqualTo(b);
        assertThat(Base64.getDecoder().decode(a.substring("whsec_".length()))).hasSize(32);
        assertThat(new WebhookSigner(a).sign("1", 1, new byte[0])).startsWith("v1,");
    }

    @Test
    void malformedSecretsAreRefusedWithoutEchoingThem() {
        assertThatThrownBy(() -> new WebhookSigner("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("MfKQ9r8G");
        assertThatThrownBy(() -> new WebhookSigner("whsec_not*base64!"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("not*base64");
        assertThatThrownBy(
                        () -> new WebhookSigner("whsec_" + Base64.getEncoder().encodeToString(new byte[8])))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(new WebhookSigner("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").toString())
                .doesNotContain("MfKQ");
    }
}
