package dev.warden.api.users.totp;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.OptionalLong;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP): HMAC-SHA-1, 6 digits, 30-second steps, the
 * parameters every authenticator app accepts from an {@code otpauth://} URI without asking. A code is accepted in
 * the step it was made for and one step either side (clock drift), and only for a step after the last one
 * accepted, so a code is never good twice. Pure: no I/O, no state.
 */
public final class Totp {
    /** Digits of a code. */
    public static final int DIGITS = 6;
    /** Seconds per step. */
    public static final long STEP_SECONDS = 30;
    /** Bytes of a new secret: 160 bits, the HMAC-SHA-1 block's recommendation (RFC 4226 section 4). */
    static final int SECRET_BYTES = 20;

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int[] POWERS = {1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000};

    private Totp() {}

    /** A new random secret. */
    public static byte[] newSecret() {
        byte[] secret = new byte[SECRET_BYTES];
        RANDOM.nextBytes(secret);
        return secret;
    }

    /** The step that {@code at} falls in. */
    public static long step(Instant at) {
        return Math.floorDiv(at.getEpochSecond(), STEP_SECONDS);
    }

    /** The {@code digits}-digit code of {@code step} under {@code key} with {@code algorithm} (HmacSHA1, ...). */
    public static String code(byte[] key, long step, int digits, String algorithm) {
        if (digits < 1 || digits > 8) {
            throw new IllegalArgumentException("digits must be 1..8");
        }
        byte[] hash;
        try {
            Mac mac = Mac.getInstance(algorithm);
            mac.init(new SecretKeySpec(key, "RAW"));
            hash = mac.doFinal(ByteBuffer.allocate(8).putLong(step).array());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(algorithm + " is not available", e);
        }
        int offset = hash[hash.length - 1] & 0x0f;
        int binary = ((hash[offset] & 0x7f) << 24)
                | ((hash[offset + 1] & 0xff) << 16)
                | ((hash[offset + 2] & 0xff) << 8)
                | (hash[offset + 3] & 0xff);
        String code = Integer.toString(binary % POWERS[digits]);
        return "0".repeat(digits - code.length()) + code;
    }

    /** The 6-digit HMAC-SHA-1 code of {@code step}. */
    public static String code(byte[] key, long step) {
        return code(key, step, DIGITS, "HmacSHA1");
    }

    /**
     * The step {@code code} was made for, when it is right at {@code now} (one step of drift either way) and that
     * step comes after {@code lastAccepted}; empty otherwise. Every candidate is compared in constant time.
     */
    public static OptionalLong match(byte[] key, String code, Instant now, long lastAccepted) {
        if (code.length() != DIGITS || !code.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return OptionalLong.empty();
        }
        byte[] given = code.getBytes(StandardCharsets.US_ASCII);
        long current = step(now);
        long found = -1;
        for (long step = current - 1; step <= current + 1; step++) {
            boolean same = MessageDigest.isEqual(given, code(key, step).getBytes(StandardCharsets.US_ASCII));
            if (same && step > lastAccepted && found < 0) {
                found = step;
            }
        }
        return found < 0 ? OptionalLong.empty() : OptionalLong.of(found);
    }
}
