package dev.warden.authorizer.domain;

import java.security.SecureRandom;
import java.util.Locale;

/**
 * Shared rules for Warden's typed identifiers: what a valid id looks like and how new ones are minted.
 *
 * <p>Ids are opaque to clients. Minted ids are a kind prefix ({@code agt_}, {@code dlg_}, ...) followed by
 * 26 characters of Crockford base32 (130 random bits). Ids supplied by callers (user ids, tenant ids) are
 * accepted when they are 1 to 128 characters of {@code [A-Za-z0-9._:@-]}.
 */
public final class Ids {
    /** Longest id accepted anywhere. */
    public static final int MAX_LENGTH = 128;

    private static final char[] ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz".toCharArray();
    private static final SecureRandom RANDOM = new SecureRandom();

    private Ids() {}

    /** True when {@code value} may be used as an id: 1 to 128 characters of {@code [A-Za-z0-9._:@-]}. */
    public static boolean isValid(String value) {
        if (value == null || value.isEmpty() || value.length() > MAX_LENGTH) {
            return false;
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '.'
                    || c == '_'
                    || c == ':'
                    || c == '@'
                    || c == '-';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /**
     * Checks {@code value} and returns it.
     *
     * @throws InvalidIdException when the value is not a valid id
     */
    public static String require(String kind, String value) {
        if (!isValid(value)) {
            throw new InvalidIdException(kind + " must be 1 to " + MAX_LENGTH + " characters of [A-Za-z0-9._:@-]");
        }
        return value;
    }

    /** A new random id with the given prefix, e.g. {@code mint("agt")} gives {@code agt_0h7...}. */
    public static String mint(String prefix) {
        // One draw of 17 bytes (136 bits, 130 used), not one per character: SecureRandom serialises its
        // callers, and an audit id is minted for every decision.
        byte[] bits = new byte[17];
        RANDOM.nextBytes(bits);
        StringBuilder out = new StringBuilder(prefix.length() + 27)
                .append(prefix.toLowerCase(Locale.ROOT))
                .append('_');
        for (int i = 0; i < 26; i++) {
            int bit = i * 5;
            int window = ((bits[bit / 8] & 0xff) << 8) | (bits[bit / 8 + 1] & 0xff);
            out.append(ALPHABET[(window >>> (11 - bit % 8)) & 31]);
        }
        return out.toString();
    }

    /** Thrown for a value that is not a valid id. */
    public static final class InvalidIdException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        InvalidIdException(String message) {
            super(message);
        }
    }
}
