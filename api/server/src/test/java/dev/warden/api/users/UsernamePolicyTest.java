package dev.warden.api.users;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class UsernamePolicyTest {
    final UsernamePolicy defaults =
            new UsernamePolicy(UsersConfig.builder().build().username());

    @Test
    void theSpecDefaultsAcceptLettersDigitsUnderscoreAndDashInAnyCase() {
        assertThat(defaults.check("Ann_Lee-42").username()).contains(new Username("Ann_Lee-42", "ann_lee-42"));
        assertThat(defaults.check("abc").problem()).isEmpty();
        assertThat(defaults.check("a".repeat(32)).problem()).isEmpty();
    }

    @Test
    void lengthIsCheckedBeforeThePattern() {
        assertThat(defaults.check("a!").problem()).contains("must be at least 3 characters");
        assertThat(defaults.check("!".repeat(33)).problem()).contains("must be at most 32 characters");
        assertThat(defaults.check("ann lee").problem()).contains("must match (?i)^[a-z0-9_-]+$");
        assertThat(defaults.check("ann\n").problem()).isPresent();
    }

    @Test
    void lookupIgnoresCaseUnlessConfiguredCaseSensitive() {
        UsernamePolicy sensitive = new UsernamePolicy(UsersConfig.builder()
                .username(3, 32, "(?i)^[a-z0-9_-]+$", true)
                .build()
                .username());

        assertThat(defaults.keyOf("ANN")).isEqualTo(defaults.keyOf("ann"));
        assertThat(sensitive.keyOf("ANN")).isNotEqualTo(sensitive.keyOf("ann"));
    }

    @Test
    void customRulesApply() {
        UsernamePolicy custom = new UsernamePolicy(
                UsersConfig.builder().username(5, 8, "^[a-z]+$", false).build().username());

        assertThat(custom.check("abcd").problem()).contains("must be at least 5 characters");
        assertThat(custom.check("ABCDE").problem()).contains("must match ^[a-z]+$");
        assertThat(custom.check("abcde").problem()).isEmpty();
    }

    @Test
    void lengthCountsCharactersNotUtf16Units() {
        UsernamePolicy unicode = new UsernamePolicy(
                UsersConfig.builder().username(3, 3, ".+", false).build().username());

        assertThat(unicode.check("\uD83D\uDE00\uD83D\uDE00\uD83D\uDE00").problem())
                .isEmpty();
    }
}
