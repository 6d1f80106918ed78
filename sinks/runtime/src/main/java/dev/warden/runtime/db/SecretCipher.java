package dev.warden.runtime.db;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * How webhook signing secrets are kept at rest. The secret must be readable to sign deliveries, so it cannot
 * be hashed like tokens; with a key it is encrypted with AES-256-GCM (a fresh 96-bit nonce per secret, the
 * endpoint id as associated data, so a stored value cannot be moved to another endpoint) and stored as
 * {@code aesgcm:v1:<base64 of nonce, ciphertext and tag>}. Without a key it is stored as-is.
 *
 * <p>{@link #open} reads both forms, so a key can be configured on a deployment that already has secrets
 * stored in clear (they stay readable; new ones are encrypted). Thread-safe; never logs a secret.
 */
public final class SecretCipher {
    static final String PREFIX = "aesgcm:v1:";
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Optional<SecretKeySpec> key;

    /** The length of an AES-256 key. */
    public static final int KEY_BYTES = 32;

    private SecretCipher(Optional<SecretKeySpec> key) {
        this.key = key;
    }

    /** A cipher that stores secrets as-is. */
    public static SecretCipher none() {
        return new SecretCipher(Optional.empty());
    }

    /** A cipher encrypting with the 32-byte AES key {@code key}. */
    public static SecretCipher aes256(byte[] key) {
        if (key.length != KEY_BYTES) {
            throw new IllegalArgumentException("an AES-256 key is 32 bytes");
        }
        return new SecretCipher(Optional.of(new SecretKeySpec(key.clone(), "AES")));
    }

    /** True when secrets are encrypted. */
    public boolean encrypts() {
        return key.isPresent();
    }

    /** The stored form of {@code secret} for endpoint {@code endpointId}. */
    public String seal(String endpointId, String secret) {
        if (key.isEmpty()) {
            return secret;
        }
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        byte[] sealed = crypt(Cipher.ENCRYPT_MODE, nonce, endpointId, secret.getBytes(StandardCharsets.UTF_8));
        byte[] out = Arrays.copyOf(nonce, NONCE_BYTES + sealed.length);
        System.arraycopy(sealed, 0, out, NONCE_BYTES, sealed.length);
        return PREFIX + Base64.getEncoder().encodeToString(out);
    }

    /**
     * The secret of endpoint {@code endpointId} from its stored form.
     *
     * @throws IllegalStateException when it is encrypted and there is no key, or the key or id does not match
     */
    public String open(String endpointId, String stored) {
        if (!stored.startsWith(PREFIX)) {
            return stored;
        }
        if (key.isEmpty()) {
            throw new IllegalStateException("the secret is encrypted but warden.webhooks.encryption-key is not set");
        }
        byte[] all;
        try {
            all = Base64.getDecoder().decode(stored.substring(PREFIX.length()));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("the stored secret is corrupt");
        }
        if (all.length <= NONCE_BYTES) {
            throw new IllegalStateException("the stored secret is corrupt");
        }
        byte[] plain = crypt(
                Cipher.DECRYPT_MODE,
                Arrays.copyOf(all, NONCE_BYTES),
                endpointId,
                Arrays.copyOfRange(all, NONCE_BYTES, all.length));
        return new String(plain, StandardCharsets.UTF_8);
    }

    private byte[] crypt(int mode, byte[] nonce, String endpointId, byte[] input) {
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(mode, key.orElseThrow(), new GCMParameterSpec(TAG_BITS, nonce));
            cipher.updateAAD(endpointId.getBytes(StandardCharsets.UTF_8));
            return cipher.doFinal(input);
        } catch (AEADBadTagException e) {
            throw new IllegalStateException("the stored secret does not decrypt with the configured key");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES/GCM failed: " + e.getClass().getSimpleName(), e);
        }
    }

    @Override
    public String toString() {
        return "SecretCipher[" + (key.isPresent() ? "aes-256-gcm" : "none") + "]";
    }
}
