package dev.warden.cli.commands;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.StringJoiner;

/** Builds request paths from what a person typed: every id and query value encoded, absent values left out. */
final class Paths {
    private Paths() {}

    /** {@code prefix/<id>[/suffix]}, the id encoded as one path segment. */
    static String of(String prefix, String id, String... suffix) {
        if (id == null || id.isBlank()) {
            throw new IllegalArgumentException("an id must not be blank");
        }
        StringBuilder b = new StringBuilder(prefix).append('/').append(segment(id));
        for (String s : suffix) {
            b.append('/').append(s);
        }
        return b.toString();
    }

    /** {@code path?k=v&…} with the present values of {@code query}, in order. */
    static String query(String path, Map<String, ?> query) {
        StringJoiner joined = new StringJoiner("&");
        query.forEach((k, v) -> {
            if (v != null && !v.toString().isEmpty()) {
                joined.add(k + "=" + URLEncoder.encode(v.toString(), StandardCharsets.UTF_8));
            }
        });
        return joined.length() == 0 ? path : path + "?" + joined;
    }

    /** A query built in order (values may be null). */
    static Map<String, Object> params(Object... pairs) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            m.put((String) pairs[i], pairs[i + 1]);
        }
        return m;
    }

    private static String segment(String id) {
        return URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
