package dev.warden.api.oauth.device;

import java.security.SecureRandom;
import java.util.Locale;
import java.util.Optional;

/**
 * User codes (RFC 8628 section 6.1): eight letters from an alphabet of 20 consonants (no vowels, so no words;
 * nothing that reads like a digit), shown as {@code BCDF-GHJK}: about 34.5 bits, against which the verification
 * page allows a few guesses a minute per address while a code lives (10 minutes by default). Input is read
 * case-insensitively, ignoring dashes and spaces.
 */
public final class UserCodes {
    static final String ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";
    static final int LENGTH = 8;
    private static final SecureRandom RANDOM = new SecureRandom();

    private UserCodes() {}

    /** A new code, e.g. {@code WDJB-MJHT}. */
    static String mint() {
        StringBuilder code = new StringBuilder(LENGTH + 1);
        for (int i = 0; i < LENGTH; i++) {
            if (i == LENGTH / 2) {
                code.append('-');
            }
            code.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
        }
        return code.toString();
    }

    /** The canonical form of what a user typed ({@code BCDFGHJK}), empty when it cannot be a user code. */
    public static Optional<String> normalize(String typed) {
        if (typed == null || typed.length() > 32) {
            return Optional.empty();
        }
        StringBuilder code = new StringBuilder(LENGTH);
        for (char c : typed.toUpperCase(Locale.ROOT).toCharArray()) {
            if (c == '-' || c == ' ') {
                continue;
            }
            if (ALPHABET.indexOf(c) < 0) {
                return Optional.empty();
            }
            code.append(c);
        }
        return code.length() == LENGTH ? Optional.of(code.toString()) : Optional.empty();
    }

    /** {@code BCDFGHJK} as shown: {@code BCDF-GHJK}. */
    public static String display(String canonical) {
        return canonical.substring(0, LENGTH / 2) + "-" + canonical.substring(LENGTH / 2);
    }
}
