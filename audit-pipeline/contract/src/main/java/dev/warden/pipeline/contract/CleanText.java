package dev.warden.pipeline.contract;

import java.util.Optional;

/**
 * The one rule for text Warden stores: no U+0000 (PostgreSQL's {@code text} and {@code jsonb} refuse it) and
 * no lone UTF-16 surrogate (it has no UTF-8 form, so it would be stored as {@code ?} while the response
 * echoed it). Checked at the edge for every string and object key that enters; {@link #scrub} makes text
 * that is already inside (a refused sign-in name, an error message) safe to log or emit. Thread-safe.
 */
public final class CleanText {
    /** What replaces a character {@link #scrub} removes. */
    public static final char REPLACEMENT = '\uFFFD';

    private CleanText() {}

    /** Why {@code text} may not be stored, or empty when it may. */
    public static Optional<String> problem(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == 0) {
                return Optional.of("must not contain the character U+0000");
            }
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c)
                        && i + 1 < text.length()
                        && Character.isLowSurrogate(text.charAt(i + 1))) {
                    i++;
                } else {
                    return Optional.of("must be valid Unicode (it contains a lone surrogate)");
                }
            }
        }
        return Optional.empty();
    }

    /** True when {@code text} may be stored as it is. */
    public static boolean isClean(String text) {
        return problem(text).isEmpty();
    }

    /** {@code text} with every U+0000 and lone surrogate replaced by U+FFFD. */
    public static String scrub(String text) {
        if (isClean(text)) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                out.append(c).append(text.charAt(++i));
            } else if (c == 0 || Character.isSurrogate(c)) {
                out.append(REPLACEMENT);
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
