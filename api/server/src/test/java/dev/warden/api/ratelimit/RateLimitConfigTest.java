package dev.warden.api.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.api.config.ConfigLoader;
import dev.warden.api.config.WardenConfig;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RateLimitConfigTest {
    static RateLimitConfig load(Map<String, String> env) {
        return WardenConfig.from(ConfigLoader.load(Optional.empty(), env)).rateLimit();
    }

    @Test
    void withNoConfigurationTheSpecDefaultsApplyInMemory() {
        RateLimitConfig config = load(Map.of());

        assertThat(config.store()).isEqualTo(StoreKind.MEMORY);
        assertThat(config.trustedProxies()).isEmpty();
        assertThat(config.ruleFor(AuthEndpoint.SIGN_IN, false)).contains(RateLimit.perMinute(10));
        assertThat(config.failModeFor(AuthEndpoint.SIGN_IN)).isEqualTo(FailMode.OPEN);
        assertThat(config.failModeFor(AuthEndpoint.SIGN_UP)).isEqualTo(FailMode.CLOSED);
    }

    @Test
    void everyKeyIsReadFromEnvironmentVariables() {
        RateLimitConfig config = load(Map.of(
                "WARDEN_RATE__LIMIT_STORE", "redis",
                "WARDEN_RATE__LIMIT_REDIS__URL", "redis://:s3cret@cache:6380/2",
                "WARDEN_RATE__LIMIT_TRUSTED__PROXIES", "10.0.0.0/8, 192.0.2.7",
                "WARDEN_RATE__LIMIT_REDIS__TIMEOUT__MS", "100",
                "WARDEN_RATE__LIMIT_ENDPOINTS_SIGN__IN_LIMIT", "20",
                "WARDEN_RATE__LIMIT_ENDPOINTS_SIGN__IN_WINDOW", "120",
                "WARDEN_RATE__LIMIT_ENDPOINTS_SIGN__UP_FAIL__MODE", "open",
                "WARDEN_RATE__LIMIT_ENDPOINTS_MAGIC__LINK_LIMIT", "-1"));

        assertThat(config.store()).isEqualTo(StoreKind.REDIS);
        assertThat(config.redisUrl()).hasValue("redis://:s3cret@cache:6380/2");
        assertThat(config.redisTimeout()).isEqualTo(Duration.ofMillis(100));
        assertThat(config.trustedProxies()).containsExactly(Cidr.parse("10.0.0.0/8"), Cidr.parse("192.0.2.7/32"));
        assertThat(config.ruleFor(AuthEndpoint.SIGN_IN, false)).contains(RateLimit.perSeconds(20, 120));
        assertThat(config.failModeFor(AuthEndpoint.SIGN_UP)).isEqualTo(FailMode.OPEN);
        assertThat(config.ruleFor(AuthEndpoint.SIGN_UP, false)).contains(RateLimit.perMinute(5));
        assertThat(config.ruleFor(AuthEndpoint.MAGIC_LINK, false))
                .as("negative disables")
                .isEmpty();
        assertThat(config.toString()).doesNotContain("s3cret");
    }

    @Test
    void badValuesNameTheirKey() {
        assertThatThrownBy(() -> load(Map.of("WARDEN_RATE__LIMIT_STORE", "disk")))
                .hasMessageContaining("warden.rate-limit.store")
                .hasMessageContaining("disk");
        assertThatThrownBy(() -> load(Map.of("WARDEN_RATE__LIMIT_TRUSTED__PROXIES", "10.0.0.0/99")))
                .hasMessageContaining("warden.rate-limit.trusted-proxies");
        assertThatThrownBy(() -> load(Map.of("WARDEN_RATE__LIMIT_ENDPOINTS_SIGN__IN_LIMIT", "0")))
                .hasMessageContaining("warden.rate-limit.endpoints.sign-in");
        assertThatThrownBy(() -> load(Map.of("WARDEN_RATE__LIMIT_ENDPOINTS_SIGN__IN_FAIL__MODE", "maybe")))
                .hasMessageContaining("fail-mode");
    }
}
