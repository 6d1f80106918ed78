package dev.warden.api.users;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.api.config.ConfigLoader;
import dev.warden.api.config.WardenConfig;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class UsersConfigTest {
    static UsersConfig load(Map<String, String> env) {
        return WardenConfig.from(ConfigLoader.load(Optional.empty(), env)).users();
    }

    @Test
    void theBuiltInDefaultsAreTheSpecsAndOwaspsAndMatchTheBuilder() {
        UsersConfig config = load(Map.of());

        assertThat(config)
                .isEqualTo(UsersConfig.builder()
                        .maxConcurrentHashes(config.password().maxConcurrentHashes())
                        .build());
        assertThat(config.username()).isEqualTo(new UsersConfig.UsernameRules(3, 32, "(?i)^[a-z0-9_-]+$", false));
        assertThat(config.password().memoryKib()).isEqualTo(19_456);
        assertThat(config.password().iterations()).isEqualTo(2);
        assertThat(config.password().parallelism()).isEqualTo(1);
        assertThat(config.password().minLength()).isEqualTo(8);
    }

    @Test
    void everyKeyIsReadFromEnvironmentVariables() {
        UsersConfig config = load(Map.of(
                "WARDEN_USERS_USERNAME_MIN__LENGTH", "4",
                "WARDEN_USERS_USERNAME_CASE__SENSITIVE", "true",
                "WARDEN_USERS_PASSWORD_MIN__LENGTH", "12",
                "WARDEN_USERS_PASSWORD_ARGON2_MEMORY__KIB", "65536",
                "WARDEN_USERS_LOCKOUT_MAX__FAILURES", "5",
                "WARDEN_USERS_SESSION_TTL__SECONDS", "3600",
                "WARDEN_USERS_SESSION_COOKIE__SECURE", "always",
                "WARDEN_USERS_SIGN__UP__ENABLED", "false"));

        assertThat(config.username().minLength()).isEqualTo(4);
        assertThat(config.username().caseSensitive()).isTrue();
        assertThat(config.password().minLength()).isEqualTo(12);
        assertThat(config.password().memoryKib()).isEqualTo(65_536);
        assertThat(config.lockout().maxFailures()).isEqualTo(5);
        assertThat(config.session().ttl()).isEqualTo(Duration.ofHours(1));
        assertThat(config.session().cookieSecure()).isEqualTo(UsersConfig.CookieSecure.ALWAYS);
        assertThat(config.signUpEnabled()).isFalse();
    }

    @Test
    void inconsistentValuesAreRejectedNamingTheNode() {
        assertThatThrownBy(() -> load(Map.of("WARDEN_USERS_USERNAME_MIN__LENGTH", "40")))
                .hasMessageContaining("warden.users.username");
        assertThatThrownBy(() -> load(Map.of("WARDEN_USERS_USERNAME_PATTERN", "([a-z")))
                .hasMessageContaining("warden.users.username.pattern");
        assertThatThrownBy(() -> load(Map.of("WARDEN_USERS_SESSION_MAX__LIFETIME__SECONDS", "60")))
                .hasMessageContaining("warden.users.session");
    }
}
