package dev.warden.api.oauth.authorize;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.regex.Pattern;

/** PKCE with {@code S256} only (RFC 7636; OAuth 2.1 and MCP require it, {@code plain} is refused). */
public final class Pkce {
    /** The one method accepted. */
    public static final String S256 = "S256";

    private static final Pattern VERIFIER = Pattern.compile("[A-Za-z0-9\\-._~]{43,128}");
    /** BASE64URL(SHA-256(...)) without padding: 43 characters. */
    private static final Pattern CHALLENGE = Pattern.compile("[A-Za-z0-9\\-_]{43}");

    private Pkce() {}

    /** True when {@code verifier} has the form RFC 7636 section 4.1 requires. */
    public static boolean verifierFormatOk(String verifier) {
        return VERIFIER.matcher(verifier).matches();
    }

    /** True when {@code challenge} is an S256 challenge in form. */
    public static boolean challengeFormatOk(String challenge) {
        return CHALLENGE.matcher(challenge).matches();
    }

    /** True when {@code verifier} hashes to {@code challenge}, compared in constant time. */
    public static boolean matches(String verifier, String challenge) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII));
            byte[] computed = Base64.getUrlEncoder()
                    .withoutPadding()
                    .encodeToString(digest)
                    .getBytes(StandardCharsets.US_ASCII);
            return MessageDigest.isEqual(computed, challenge.getBytes(StandardCharsets.US_ASCII));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
