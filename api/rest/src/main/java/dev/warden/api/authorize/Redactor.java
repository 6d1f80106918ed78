package dev.warden.api.authorize;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Replaces the values of secret-like keys in call arguments with {@value #REDACTED} before they are
 * audited, at any depth. A key is secret-like when, lower-cased and without {@code -}, {@code _} and
 * {@code .}, it contains one of {@link #CONTAINS} or equals one of {@link #EXACT}.
 */
public final class Redactor {
    /** The replacement text. */
    public static final String REDACTED = "[REDACTED]";
    /** Fragments that make a key secret-like wherever they appear. */
    public static final Set<String> CONTAINS = Set.of(
            "password",
            "passwd",
            "passphrase",
            "secret",
            "token",
            "apikey",
            "authorization",
            "credential",
            "privatekey",
            "cookie",
            "session",
            "signature",
            "bearer");
    /** Whole keys that are secret-like. */
    public static final Set<String> EXACT = Set.of("code", "otp", "pin", "pwd", "auth", "key", "cvv", "ssn");

    private Redactor() {}

    /** A copy of {@code arguments} with secret-like values redacted. */
    public static Map<String, Object> redact(Map<String, Object> arguments) {
        Map<String, Object> out = new LinkedHashMap<>();
        arguments.forEach((key, value) -> out.put(key, isSecret(key) ? REDACTED : redactValue(value)));
        return out;
    }

    /** True when {@code key} names a secret. */
    public static boolean isSecret(String key) {
        String k =
                key.toLowerCase(Locale.ROOT).replace("-", "").replace("_", "").replace(".", "");
        return EXACT.contains(k) || CONTAINS.stream().anyMatch(k::contains);
    }

    @SuppressWarnings("unchecked")
    private static Object redactValue(Object value) {
        if (value instanceof Map<?, ?> map) {
            return redact((Map<String, Object>) map);
        }
        if (value instanceof List<?> list) {
            List<Object> out = new ArrayList<>(list.size());
            list.forEach(v -> out.add(redactValue(v)));
            return out;
        }
        return value;
    }
}
