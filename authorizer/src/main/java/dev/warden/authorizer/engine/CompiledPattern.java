package dev.warden.authorizer.engine;

import dev.warden.authorizer.domain.ResourcePattern;

/**
 * A resource pattern ({@link ResourcePattern} grammar) compiled for matching.
 *
 * <p>Every pattern compiles to one literal string and a flag:
 * <ul>
 *   <li>exact {@code mcp:github:issues}: literal {@code "mcp:github:issues"}; matches that resource only;</li>
 *   <li>trailing wildcard {@code mcp:github:*}: literal prefix {@code "mcp:github:"}; matches a resource
 *       that starts with the prefix and has at least one character after it, that is one or more further
 *       segments ({@code mcp:github:issues}, {@code mcp:github:issues:42}, never {@code mcp:github});</li>
 *   <li>bare {@code *}: empty literal prefix; matches every resource.</li>
 * </ul>
 *
 * <p>Immutable and thread-safe. {@link #matches(String)} allocates nothing: it is one
 * {@link String#equals(Object)} or one length check plus {@link String#startsWith(String)}.
 *
 * <p>Resources are expected to be valid ({@link ResourcePattern#resourceProblem(String)} empty); the engine
 * does not re-validate them on the hot path. Matching is literal, so even an invalid resource never matches
 * a pattern unless it equals the exact pattern or starts with the wildcard pattern's literal prefix.
 */
public final class CompiledPattern {
    private static final CompiledPattern ANY = new CompiledPattern("*", true, "", 0);

    private final String pattern;
    private final boolean wildcard;
    /** Exact: the whole pattern. Wildcard: the literal segments with their trailing {@code ':'}, or "". */
    private final String literal;

    private final int literalSegments;

    private CompiledPattern(String pattern, boolean wildcard, String literal, int literalSegments) {
        this.pattern = pattern;
        this.wildcard = wildcard;
        this.literal = literal;
        this.literalSegments = literalSegments;
    }

    /**
     * Compiles a pattern.
     *
     * @throws IllegalArgumentException when {@code pattern} is not valid under {@link ResourcePattern}
     */
    public static CompiledPattern compile(String pattern) {
        ResourcePattern.requireValid(pattern);
        if (pattern.equals("*")) {
            return ANY;
        }
        if (pattern.endsWith(":*")) {
            String prefix = pattern.substring(0, pattern.length() - 1);
            return new CompiledPattern(pattern, true, prefix, countColons(prefix));
        }
        return new CompiledPattern(pattern, false, pattern, countColons(pattern) + 1);
    }

    /**
     * True when every resource matched by {@code b} is matched by {@code a}: the test that a delegated
     * pattern {@code b} stays within the source pattern {@code a}.
     *
     * @throws IllegalArgumentException when either is not a valid pattern
     * @see #covers(CompiledPattern)
     */
    public static boolean covers(String a, String b) {
        return compile(a).covers(compile(b));
    }

    /** True when {@code resource} is matched by this pattern. Allocation-free. */
    public boolean matches(String resource) {
        if (wildcard) {
            return resource.length() > literal.length() && resource.startsWith(literal);
        }
        return resource.equals(literal);
    }

    /**
     * True when every resource matched by {@code other} is also matched by this pattern.
     *
     * <p>{@code *} covers everything and only {@code *} covers {@code *}; {@code mcp:github:*} covers
     * {@code mcp:github:issues}, {@code mcp:github:issues:*} and itself, but not {@code mcp:github} and not
     * {@code mcp:*}; an exact pattern covers only itself.
     */
    public boolean covers(CompiledPattern other) {
        if (!wildcard) {
            return !other.wildcard && other.literal.equals(literal);
        }
        if (other.wildcard) {
            // Both literals end in ':' (or are ""), so a prefix relation is a segment-wise prefix relation.
            return other.literal.startsWith(literal);
        }
        return matches(other.literal);
    }

    /** The pattern as written, e.g. {@code mcp:github:*}. */
    public String pattern() {
        return pattern;
    }

    /** True for a pattern ending in {@code *} (including bare {@code *}); false for an exact pattern. */
    public boolean isWildcard() {
        return wildcard;
    }

    /** How many literal segments the pattern has: 2 for {@code mcp:github:*} and {@code mcp:github}, 0 for {@code *}. */
    public int literalSegments() {
        return literalSegments;
    }

    /** The first literal segment ({@code mcp} for {@code mcp:github:*}); "" for bare {@code *}. */
    String firstSegment() {
        if (literalSegments == 0) {
            return "";
        }
        int colon = literal.indexOf(':');
        return colon < 0 ? literal : literal.substring(0, colon);
    }

    private static int countColons(String s) {
        int count = 0;
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == ':') {
                count++;
            }
        }
        return count;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CompiledPattern other && other.pattern.equals(pattern);
    }

    @Override
    public int hashCode() {
        return pattern.hashCode();
    }

    @Override
    public String toString() {
        return pattern;
    }
}
