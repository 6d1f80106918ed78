package dev.warden.api.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.testing.MutableClock;
import io.helidon.http.Method;
import java.util.List;
import org.junit.jupiter.api.Test;

class RateLimitFilterTest {
    final MemoryRateLimitStore store = new MemoryRateLimitStore(new MutableClock());
    final RateLimiter signIn =
            RateLimiter.builder("sign-in").limit(10).store(store).build();
    final RateLimiter magic = RateLimiter.builder("magic").limit(3).store(store).build();
    final RateLimitFilter filter = new RateLimitFilter(List.of(
            new RateLimitFilter.Rule(Method.POST, "/auth/sign-in", signIn),
            new RateLimitFilter.Rule(Method.POST, "/auth/sign-in/magic-link", magic)));

    @Test
    void matchesThePathItsSubPathsAndATrailingSlash() {
        assertThat(filter.limiterFor(Method.POST, "/auth/sign-in")).containsSame(signIn);
        assertThat(filter.limiterFor(Method.POST, "/auth/sign-in/")).containsSame(signIn);
        assertThat(filter.limiterFor(Method.POST, "/auth/sign-in/other")).containsSame(signIn);
    }

    @Test
    void theLongestMatchingPathWins() {
        assertThat(filter.limiterFor(Method.POST, "/auth/sign-in/magic-link")).containsSame(magic);
    }

    @Test
    void otherMethodsAndLookAlikePathsAreNotLimited() {
        assertThat(filter.limiterFor(Method.GET, "/auth/sign-in")).isEmpty();
        assertThat(filter.limiterFor(Method.POST, "/auth/sign-inx")).isEmpty();
        assertThat(filter.limiterFor(Method.POST, "/auth")).isEmpty();
    }

    @Test
    void theRegistryCoversEverySpecEndpointWithItsDefault() {
        RateLimitConfig defaults = RateLimitConfig.builder().build();

        assertThat(defaults.ruleFor(AuthEndpoint.SIGN_IN, false)).contains(RateLimit.perMinute(10));
        assertThat(defaults.ruleFor(AuthEndpoint.SIGN_UP, false)).contains(RateLimit.perMinute(5));
        assertThat(defaults.ruleFor(AuthEndpoint.MAGIC_LINK, false)).contains(RateLimit.perMinute(3));
        assertThat(defaults.ruleFor(AuthEndpoint.EMAIL_OTP, false)).contains(RateLimit.perMinute(5));
        assertThat(defaults.ruleFor(AuthEndpoint.TOTP_VERIFY, false)).contains(RateLimit.perMinute(10));
        assertThat(defaults.ruleFor(AuthEndpoint.OAUTH_TOKEN, false)).contains(RateLimit.perMinute(20));
        assertThat(defaults.ruleFor(AuthEndpoint.REGISTRATION, false)).contains(RateLimit.perMinute(5));
        assertThat(defaults.ruleFor(AuthEndpoint.REGISTRATION, true)).contains(RateLimit.perMinute(1));
    }
}
