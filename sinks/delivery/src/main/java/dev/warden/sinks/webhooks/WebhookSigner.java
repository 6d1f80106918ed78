package dev.warden.sinks.webhooks;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs webhook deliveries per the Standard Webhooks specification (https://www.standardwebhooks.com): the
 * signature is {@code v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">}, keyed with the
 * base64-decoded part of the secret after {@code whsec_}. Receivers can therefore verify with any Standard
 * Webhooks library. Immutable and thread-safe; {@link #toString()} never shows the key.
 */
public final class WebhookSigner {
    /** The prefix of every signing secret. */
    public static final String SECRET_PREFIX = "whsec_";
    /** Random bytes in a freshly minted secret (the specification asks for 24 to 64). */
    static final int SECRET_BYTES = 32;

    private static final int MIN_KEY_BYTES = 24;
    private static final int MAX_KEY_BYTES = 64;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final SecretKeySpec key;

    /**
     * A signer for {@code secret} ({@code whsec_<base64>}).
     *
     * @throws IllegalArgumentException when the secret is not of that form or its key is not 24 to 64 bytes;
     *                                  the message never contains the secret
     */
    public WebhookSigner(String secret) {
        this.key = new SecretKeySpec(decode(secret), "HmacSHA256");
    }

    /** A new secret: {@code whsec_} and the standard base64 of 32 random bytes. */
    public static String newSecret() {
        byte[] bytes = new byte[SECRET_BYTES];
        RANDOM.nextBytes(bytes);
        return SECRET_PREFIX + Base64.getEncoder().encodeToString(bytes);
    }

    /** The value of the {@code webhook-signature} header for one attempt. */
    public String sign(String webhookId, long timestampSeconds, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            mac.update((webhookId + "." + timestampSeconds + ".").getBytes(StandardCharsets.UTF_8));
            return "v1," + Base64.getEncoder().encodeToString(mac.doFinal(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is required by every JDK", e);
        }
    }

    private static byte[] decode(String secret) {
        if (!secret.startsWith(SECRET_PREFIX)) {
            throw new IllegalArgumentException("a webhook secret must start with " + SECRET_PREFIX);
        }
        byte[] key;
        try {
            key = Base64.getDecoder().decode(secret.substring(SECRET_PREFIX.length()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("a webhook secret must be " + SECRET_PREFIX + " followed by base64");
        }
        if (key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) {
            throw new IllegalArgumentException(
                    "a webhook secret's key must be " + MIN_KEY_BYTES + " to " + MAX_KEY_BYTES + " bytes");
        }
        return key;
    }

    @Override
    public String toString() {
        return "WebhookSigner[****]";
    }
}
