package dev.warden.authorizer.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class CompiledPatternTest {

    @Test
    void trailingWildcardMatchesOneOrMoreSegmentsButNotThePrefixItself() {
        CompiledPattern github = CompiledPattern.compile("mcp:github:*");

        assertThat(github.matches("mcp:github:issues")).isTrue();
        assertThat(github.matches("mcp:github:issues:42")).isTrue();
        assertThat(github.matches("mcp:github")).isFalse();
        assertThat(github.matches("mcp:github:")).isFalse();
    }

    @Test
    void trailingWildcardDoesNotMatchSiblingsOrSegmentsThatOnlyShareAPrefix() {
        CompiledPattern github = CompiledPattern.compile("mcp:github:*");

        assertThat(github.matches("mcp:gitlab:x")).isFalse();
        assertThat(github.matches("mcp:githubx:issues")).isFalse();
        assertThat(github.matches("mcp:git")).isFalse();
        assertThat(github.matches("xmcp:github:issues")).isFalse();
    }

    @Test
    void bareStarMatchesEveryResource() {
        CompiledPattern any = CompiledPattern.compile("*");

        assertThat(any.matches("mcp")).isTrue();
        assertThat(any.matches("mcp:github:issues:42")).isTrue();
        assertThat(any.matches("db:orders")).isTrue();
    }

    @Test
    void exactPatternMatchesOnlyTheSameResource() {
        CompiledPattern exact = CompiledPattern.compile("mcp:github");

        assertThat(exact.matches("mcp:github")).isTrue();
        assertThat(exact.matches("mcp:github:issues")).isFalse();
        assertThat(exact.matches("mcp")).isFalse();
        assertThat(exact.matches("MCP:github")).isFalse();
    }

    @ParameterizedTest(name = "{0} matches {1}: {2}")
    @CsvSource({
        "mcp:github:*,        mcp:github:issues,     true",
        "mcp:github:*,        mcp:github:issues:42,  true",
        "mcp:github:*,        mcp:github,            false",
        "mcp:github:*,        mcp:gitlab:x,          false",
        "mcp:github:*,        mcp:githubx:y,         false",
        "mcp:github:issues:*, mcp:github:issues:42,  true",
        "mcp:github:issues:*, mcp:github:issues,     false",
        "mcp:github:issues:*, mcp:github:prs:1,      false",
        "mcp:*,               mcp:a,                 true",
        "mcp:*,               mcp,                   false",
        "mcp:*,               mcpx:a,                false",
        "*,                   mcp,                   true",
        "*,                   a:b:c:d:e,             true",
        "mcp,                 mcp,                   true",
        "mcp,                 mcp:a,                 false",
        "db:orders:42,        db:orders:42,          true",
        "db:orders:42,        db:orders:4,           false",
        "db:orders:42,        db:orders:420,         false",
    })
    void matchingTable(String pattern, String resource, boolean expected) {
        assertThat(CompiledPattern.compile(pattern).matches(resource)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} covers {1}: {2}")
    @CsvSource({
        "mcp:github:*,        mcp:github:issues:*,   true",
        "mcp:github:issues:*, mcp:github:*,          false",
        "mcp:github:*,        mcp:github:issues,     true",
        "mcp:github:*,        mcp:github:issues:42,  true",
        "mcp:github:*,        mcp:github:*,          true",
        "mcp:github:*,        mcp:github,            false",
        "mcp:github:*,        mcp:*,                 false",
        "mcp:github:*,        mcp:gitlab:*,          false",
        "mcp:github:*,        mcp:githubx:*,         false",
        "mcp:github:*,        mcp:githubx:y,         false",
        "mcp:github:*,        *,                     false",
        "*,                   *,                     true",
        "*,                   mcp:github:*,          true",
        "*,                   mcp,                   true",
        "mcp:github:issues,   mcp:github:issues,     true",
        "mcp:github:issues,   mcp:github:issues:*,   false",
        "mcp:github:issues,   mcp:github:*,          false",
        "mcp:github:issues,   *,                     false",
        "mcp:github,          mcp:github:issues,     false",
    })
    void coverageTable(String a, String b, boolean expected) {
        assertThat(CompiledPattern.covers(a, b)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} has {1} literal segments")
    @CsvSource({"*, 0", "mcp, 1", "mcp:*, 1", "mcp:github, 2", "mcp:github:*, 2", "mcp:github:issues:42, 4"})
    void literalSegmentsCountEverySegmentButTheWildcard(String pattern, int expected) {
        assertThat(CompiledPattern.compile(pattern).literalSegments()).isEqualTo(expected);
    }

    @Test
    void wildcardFlagDistinguishesExactPatterns() {
        assertThat(CompiledPattern.compile("*").isWildcard()).isTrue();
        assertThat(CompiledPattern.compile("a:*").isWildcard()).isTrue();
        assertThat(CompiledPattern.compile("a:b").isWildcard()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "mcp:*:x", "mcp:git*", "a::b", "*:a", "a:", ":a", "a:**"})
    void compileRejectsInvalidPatterns(String pattern) {
        assertThatIllegalArgumentException().isThrownBy(() -> CompiledPattern.compile(pattern));
    }

    @Test
    void patternsWithTheSameTextAreEqual() {
        assertThat(CompiledPattern.compile("mcp:github:*"))
                .isEqualTo(CompiledPattern.compile("mcp:github:*"))
                .hasSameHashCodeAs(CompiledPattern.compile("mcp:github:*"))
                .isNotEqualTo(CompiledPattern.compile("mcp:github"))
                .hasToString("mcp:github:*");
    }
}
