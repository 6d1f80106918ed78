package dev.warden.api.doctor;

import dev.warden.api.auth.TokenKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Whether the bootstrap administrator token ({@code warden.bootstrap.token}) is weak. It is judged once at start
 * from the configured value, and only this verdict is kept, so the doctor never holds the token and its report
 * cannot echo it; the reasons say what kind of weakness was found, never which characters or words.
 *
 * <p>A minted token (none configured: {@code Tokens.mint}, 256 random bits) is never weak. A configured token is
 * judged without its {@code wdn_adm_} prefix, which is public, and is weak when it is
 * <ul>
 *   <li>shorter than {@value #MIN_LENGTH} characters;</li>
 *   <li>made of fewer than {@value #MIN_DISTINCT} different characters (a 32-character hex string has about 14);</li>
 *   <li>made, for at least a quarter of its characters, of well-known words or default values;</li>
 *   <li>a short sequence repeated, or mostly a run of consecutive characters ({@code abcdef…}, {@code 987654…}).</li>
 * </ul>
 * None of these is plausible for a random token of that length.
 *
 * @param configured whether the token was configured (false: minted at start)
 * @param weaknesses what is weak about it, empty when it is not
 */
public record BootstrapTokenVerdict(boolean configured, List<String> weaknesses) {
    /** The shortest token not reported as weak (after the prefix). */
    public static final int MIN_LENGTH = 32;
    /** The fewest different characters a token not reported as weak has. */
    public static final int MIN_DISTINCT = 10;

    /** Lower-case words and values that guessing starts with. */
    private static final List<String> WELL_KNOWN = List.of(
            "admin",
            "changeme",
            "default",
            "letmein",
            "password",
            "passw0rd",
            "qwerty",
            "root",
            "secret",
            "test",
            "token",
            "warden",
            "123456");

    public BootstrapTokenVerdict {
        weaknesses = List.copyOf(weaknesses);
    }

    /** The verdict on the configured token, or on a minted one when none is configured. */
    public static BootstrapTokenVerdict of(Optional<String> configured) {
        return configured.map(BootstrapTokenVerdict::judge).orElseGet(BootstrapTokenVerdict::minted);
    }

    /** A token minted at start: never weak. */
    public static BootstrapTokenVerdict minted() {
        return new BootstrapTokenVerdict(false, List.of());
    }

    /** True when the token is weak. */
    public boolean weak() {
        return !weaknesses.isEmpty();
    }

    private static BootstrapTokenVerdict judge(String token) {
        String secret = token.startsWith(TokenKind.ADMIN.prefix())
                ? token.substring(TokenKind.ADMIN.prefix().length())
                : token;
        List<String> weaknesses = new ArrayList<>();
        if (secret.length() < MIN_LENGTH) {
            weaknesses.add("shorter than " + MIN_LENGTH + " characters");
        }
        if (secret.chars().distinct().count() < MIN_DISTINCT) {
            weaknesses.add("fewer than " + MIN_DISTINCT + " different characters");
        }
        int wellKnown = wellKnownShare(secret);
        if (wellKnown > 0 && wellKnown * 4 >= secret.length()) {
            weaknesses.add("made largely of well-known words or default values");
        }
        if (repeats(secret) || consecutive(secret)) {
            weaknesses.add("a repeated or sequential pattern");
        }
        return new BootstrapTokenVerdict(true, weaknesses);
    }

    /** How many characters of {@code secret} belong to an occurrence of a well-known word, ignoring case. */
    private static int wellKnownShare(String secret) {
        String lower = secret.toLowerCase(Locale.ROOT);
        boolean[] covered = new boolean[lower.length()];
        for (String word : WELL_KNOWN) {
            for (int at = lower.indexOf(word); at >= 0; at = lower.indexOf(word, at + 1)) {
                for (int i = at; i < at + word.length(); i++) {
                    covered[i] = true;
                }
            }
        }
        int share = 0;
        for (boolean c : covered) {
            share += c ? 1 : 0;
        }
        return share;
    }

    /** True when {@code secret} is its first {@code p} characters over and over, for some {@code p <= length / 2}. */
    private static boolean repeats(String secret) {
        for (int period = 1; period <= secret.length() / 2; period++) {
            if (secret.regionMatches(period, secret, 0, secret.length() - period)) {
                return true;
            }
        }
        return false;
    }

    /** True when at least half of the neighbouring characters of {@code secret} are one apart ({@code ab}, {@code 43}). */
    private static boolean consecutive(String secret) {
        int steps = 0;
        for (int i = 1; i < secret.length(); i++) {
            steps += Math.abs(secret.charAt(i) - secret.charAt(i - 1)) == 1 ? 1 : 0;
        }
        return secret.length() > 1 && steps * 2 >= secret.length() - 1;
    }
}
