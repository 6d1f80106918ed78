package dev.warden.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A token is renewed half its whole lifetime before it ends, at most 30 s before: never only once rejected. */
class RenewalTimeTest {
    private static final Instant RECEIVED = Instant.parse("2026-11-28T12:00:00Z");

    @Test
    void aShortTokenIsRenewedHalfwayThroughItsLife() {
        assertThat(OAuthTokens.Issued.renewAt(RECEIVED, Duration.ofSeconds(5))).isEqualTo(RECEIVED.plusMillis(2_500));
        assertThat(OAuthTokens.Issued.renewAt(RECEIVED, Duration.ofSeconds(60))).isEqualTo(RECEIVED.plusSeconds(30));
    }

    @Test
    void aLongTokenIsRenewedThirtySecondsBeforeItEnds() {
        assertThat(OAuthTokens.Issued.renewAt(RECEIVED, Duration.ofHours(1)))
                .isEqualTo(RECEIVED.plusSeconds(3_600 - 30));
    }

    @Test
    void aTokenKeptFromAnEarlierRunIsRenewedThirtySecondsBeforeItEnds() {
        Instant end = RECEIVED.plusSeconds(300);
        assertThat(OAuthTokens.Issued.kept("t", end).renewAt()).isEqualTo(end.minusSeconds(30));
    }
}
