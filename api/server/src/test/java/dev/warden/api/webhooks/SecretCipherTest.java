package dev.warden.api.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.runtime.db.SecretCipher;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class SecretCipherTest {
    private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    private static final byte[] KEY = key(7);

    @Test
    void withAKeyTheStoredFormIsCiphertextThatOpensBackToTheSecret() {
        SecretCipher cipher = SecretCipher.aes256(KEY);

        String stored = cipher.seal("whk_1", SECRET);

        assertThat(stored).startsWith("aesgcm:v1:").doesNotContain("MfKQ9r8G");
        assertThat(cipher.seal("whk_1", SECRET)).as("fresh nonce per seal").isNotEqualTo(stored);
        assertThat(cipher.open("whk_1", stored)).isEqualTo(SECRET);
    }

    @Test
    void aStoredSecretOpensOnlyForItsEndpointAndKey() {
        String stored = SecretCipher.aes256(KEY).seal("whk_1", SECRET);

        assertThatThrownBy(() -> SecretCipher.aes256(KEY).open("whk_2", stored))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageNotContaining("MfKQ");
        assertThatThrownBy(() -> SecretCipher.aes256(key(8)).open("whk_1", stored))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> SecretCipher.none().open("whk_1", stored))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("encryption-key");
    }

    @Test
    void withoutAKeySecretsAreStoredAsIsAndPlainOnesStayReadableOnceAKeyIsSet() {
        assertThat(SecretCipher.none().seal("whk_1", SECRET)).isEqualTo(SECRET);
        assertThat(SecretCipher.aes256(KEY).open("whk_1", SECRET)).isEqualTo(SECRET);
    }

    @Test
    void configRejectsAKeyThatIsNot32BytesOfBase64AndMasksItInToString() {
        assertThatThrownBy(
                        () -> WebhooksConfig.builder().encryptionKey("c2hvcnQ=").build())
                .hasMessageContaining("warden.webhooks.encryption-key");
        assertThatThrownBy(() ->
                        WebhooksConfig.builder().encryptionKey("not base64!").build())
                .hasMessageContaining("warden.webhooks.encryption-key");
        String good = java.util.Base64.getEncoder().encodeToString(KEY);
        WebhooksConfig config = WebhooksConfig.builder().encryptionKey(good).build();

        assertThat(config.keyBytes()).hasValueSatisfying(k -> assertThat(k).isEqualTo(KEY));
        assertThat(config.toString()).doesNotContain(good);
    }

    @Test
    void configDefaultsAreFourAttemptsOneSecondBackoffTenSecondTimeoutNoPrivateTargets() {
        WebhooksConfig config = WebhooksConfig.builder().build();

        assertThat(config.toOptions().maxAttempts()).isEqualTo(4);
        assertThat(config.toOptions().backoff()).hasSeconds(1);
        assertThat(config.toOptions().timeout()).hasSeconds(10);
        assertThat(config.allowPrivateTargets()).isFalse();
        assertThatThrownBy(() -> WebhooksConfig.builder().maxAttempts(0).build())
                .hasMessageContaining("warden.webhooks.max-attempts");
    }

    private static byte[] key(int fill) {
        byte[] key = new byte[32];
        Arrays.fill(key, (byte) fill);
        return key;
    }
}
