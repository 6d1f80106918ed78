package dev.warden.api.users;

import java.text.Normalizer;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The SPEC's username rules: length first (in code points, {@code minLength..maxLength}), then the pattern
 * (whole match). Lookup is case-insensitive unless configured otherwise. Immutable.
 */
public final class UsernamePolicy {
    private final UsersConfig.UsernameRules rules;
    private final Pattern pattern;

    public UsernamePolicy(UsersConfig.UsernameRules rules) {
        this.rules = rules;
        this.pattern = Pattern.compile(rules.pattern());
    }

    /** The username, or the reason it is not acceptable (a message for a 400 naming the field). */
    public Result check(String raw) {
        String display = Normalizer.normalize(raw, Normalizer.Form.NFC);
        int length = display.codePointCount(0, display.length());
        if (length < rules.minLength()) {
            return new Result(Optional.empty(), Optional.of("must be at least " + rules.minLength() + " characters"));
        }
        if (length > rules.maxLength()) {
            return new Result(Optional.empty(), Optional.of("must be at most " + rules.maxLength() + " characters"));
        }
        if (!pattern.matcher(display).matches()) {
            return new Result(Optional.empty(), Optional.of("must match " + rules.pattern()));
        }
        return new Result(Optional.of(new Username(display, keyOf(display))), Optional.empty());
    }

    /** The lookup key of a username as typed at sign-in, whether or not it is valid. */
    public String keyOf(String raw) {
        String display = Normalizer.normalize(raw, Normalizer.Form.NFC);
        return rules.caseSensitive() ? display : display.toLowerCase(Locale.ROOT);
    }

    /** Either a username or a problem. */
    public record Result(Optional<Username> username, Optional<String> problem) {}
}
