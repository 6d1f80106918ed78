package dev.warden.api.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;

/**
 * Minting and hashing of secrets. A token is its kind's prefix plus 32 random bytes (256 bits) in
 * unpadded base64url. Only the SHA-256 of a token is ever stored; lookups go by hash, and comparisons of
 * secrets held in memory are constant-time.
 */
public final class Tokens {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

    private Tokens() {}

    /** A fresh token of {@code kind}. */
    public static String mint(TokenKind kind) {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return kind.prefix() + B64.encodeToString(bytes);
    }

    /** SHA-256 of the token's UTF-8 bytes. */
    public static byte[] hash(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every JDK", e);
        }
    }

    /** Constant-time equality of two hashes. */
    public static boolean sameHash(byte[] a, byte[] b) {
        return MessageDigest.isEqual(a, b);
    }

    /** The kind a token claims by its prefix, if any. */
    public static Optional<TokenKind> kindOf(String token) {
        return Arrays.stream(TokenKind.values())
                .filter(k -> token.startsWith(k.prefix()))
                .findFirst();
    }
}
