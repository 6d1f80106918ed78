package dev.warden.authorizer.domain;

import java.security.SecureRandom;
import java.util.Locale;
import java.util.regex.Pattern;

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

    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9._:@-]{1," + MAX_LENGTH + "}");
    private static final char[] ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz".toCharArray();
    private static final SecureRandom RANDOM = new SecureRandom();

    private Ids() {
    }

    /** True when {@code value} may be used as an id. */
    public static boolean isValid(String value) {
        return value != null && VALID.matcher(value).matches();
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
        StringBuilder out = new StringBuilder(prefix.length() + 27).append(prefix.toLowerCase(Locale.ROOT)).append('_');
        for (int i = 0; i < 26; i++) {
            out.append(ALPHABET[RANDOM.nextInt(ALPHABET.length)]);
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
