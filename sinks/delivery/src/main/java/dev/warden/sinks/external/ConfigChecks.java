package dev.warden.sinks.external;

import java.net.URI;

/** Validation shared by the sink configurations; every failure names the key. */
final class ConfigChecks {
    private ConfigChecks() {}

    /** Checks that {@code url} is an absolute http(s) URL with a host. */
    static URI requireHttpUrl(String key, URI url) {
        String scheme = url.getScheme();
        if (scheme == null
                || url.getHost() == null
                || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))) {
            // Not echoed: a mistyped URL may still carry credentials.
            throw new IllegalArgumentException(key + " must be an absolute http(s) URL with a host");
        }
        return url;
    }

    /** Checks that {@code value} has a non-blank character. */
    static String requireText(String key, String value) {
        if (value.isBlank()) {
            throw new IllegalArgumentException(key + " must not be blank");
        }
        return value;
    }
}
