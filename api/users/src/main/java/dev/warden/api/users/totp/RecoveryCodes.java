package dev.warden.api.users.totp;

import dev.warden.api.auth.Tokens;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * One-time recovery codes: ten per enrolment, shown once, kept only as SHA-256 hashes. A code is 10 characters
 * of an alphabet without look-alikes (about 50 bits), written {@code xxxxx-xxxxx}; case, spaces and the dash are
 * ignored when one is typed back.
 */
public final class RecoveryCodes {
    /** Codes per enrolment. */
    public static final int COUNT = 10;

    private static final char[] ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789".toCharArray();
    private static final SecureRandom RANDOM = new SecureRandom();

    private RecoveryCodes() {}

    /** {@link #COUNT} new codes. */
    static List<String> mint() {
        List<String> codes = new ArrayList<>(COUNT);
        for (int i = 0; i < COUNT; i++) {
            StringBuilder code = new StringBuilder(11);
            for (int c = 0; c < 10; c++) {
                if (c == 5) {
                    code.append('-');
                }
                code.append(ALPHABET[RANDOM.nextInt(ALPHABET.length)]);
            }
            codes.add(code.toString());
        }
        return codes;
    }

    /** The stored hash of a code as typed, when it has the shape of one. */
    static Optional<byte[]> hash(String typed) {
        String canonical = typed.replace("-", "").replace(" ", "").toLowerCase(Locale.ROOT);
        if (canonical.length() != 10 || !canonical.chars().allMatch(c -> new String(ALPHABET).indexOf(c) >= 0)) {
            return Optional.empty();
        }
        return Optional.of(Tokens.hash("recovery-code:" + canonical));
    }
}
