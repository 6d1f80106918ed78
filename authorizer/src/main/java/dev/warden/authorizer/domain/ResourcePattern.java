package dev.warden.authorizer.domain;

import java.util.Optional;

/**
 * The grammar of resource patterns and concrete resources.
 *
 * <pre>
 *   pattern  = "*" | segments [ ":*" ]
 *   resource = segments
 *   segments = segment *( ":" segment )
 *   segment  = 1*( any character except ":" and "*" )
 * </pre>
 *
 * A pattern ending in {@code :*} matches every resource that starts with its literal segments and has at
 * least one segment more: {@code mcp:github:*} matches {@code mcp:github:issues} and
 * {@code mcp:github:issues:42}, not {@code mcp:github}. {@code *} alone matches every resource. There is no
 * other globbing: everything else matches exactly.
 */
public final class ResourcePattern {
    /** Longest pattern or resource accepted. */
    public static final int MAX_LENGTH = 512;

    private ResourcePattern() {}

    /** Why {@code pattern} is not a valid pattern, or empty when it is. */
    public static Optional<String> problem(String pattern) {
        return problem(pattern, true);
    }

    /** Why {@code resource} is not a valid concrete resource (no wildcard), or empty when it is. */
    public static Optional<String> resourceProblem(String resource) {
        return problem(resource, false);
    }

    /**
     * Checks a pattern.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static String requireValid(String pattern) {
        problem(pattern).ifPresent(p -> {
            throw new IllegalArgumentException(p);
        });
        return pattern;
    }

    private static Optional<String> problem(String value, boolean wildcardAllowed) {
        if (value == null || value.isEmpty()) {
            return Optional.of("must not be empty");
        }
        if (value.length() > MAX_LENGTH) {
            return Optional.of("must be at most " + MAX_LENGTH + " characters");
        }
        if (wildcardAllowed && value.equals("*")) {
            return Optional.empty();
        }
        String[] segments = value.split(":", -1);
        for (int i = 0; i < segments.length; i++) {
            String segment = segments[i];
            boolean last = i == segments.length - 1;
            if (segment.isEmpty()) {
                return Optional.of("must not have an empty segment");
            }
            if (segment.equals("*") && wildcardAllowed && last) {
                continue;
            }
            if (segment.indexOf('*') >= 0) {
                return Optional.of(
                        wildcardAllowed
                                ? "may use '*' only as the whole last segment"
                                : "must be a concrete resource without '*'");
            }
            if (!segment.strip().equals(segment) || segment.chars().anyMatch(Character::isISOControl)) {
                return Optional.of("must not have leading/trailing blanks or control characters in a segment");
            }
        }
        return Optional.empty();
    }
}
