package dev.warden.api.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RateLimitResponsesTest {
    @Test
    void theBodyHasExactlyTheSpecsFields() {
        Decision rejected = Decision.reject(RateLimit.perMinute(10), Duration.ofMillis(41_200));

        assertThat(RateLimitResponses.body(rejected).toString())
                .isEqualTo("{\"error\":{\"code\":\"RATE_LIMIT_EXCEEDED\","
                        + "\"message\":\"Too many requests. Try again in 42 seconds.\","
                        + "\"details\":{\"limit\":10,\"window\":60,\"retryAfter\":42}}}");
    }

    @Test
    void retryAfterRoundsUpAndIsAtLeastOneSecond() {
        RateLimit rule = RateLimit.perMinute(1);

        assertThat(Decision.reject(rule, Duration.ofMillis(1)).retryAfterSeconds())
                .isEqualTo(1);
        assertThat(Decision.reject(rule, Duration.ZERO).retryAfterSeconds()).isEqualTo(1);
        assertThat(Decision.reject(rule, Duration.ofMillis(1000)).retryAfterSeconds())
                .isEqualTo(1);
        assertThat(Decision.reject(rule, Duration.ofMillis(1001)).retryAfterSeconds())
                .isEqualTo(2);
        assertThat(Decision.allow(rule, 0).retryAfterSeconds()).isZero();
    }
}
