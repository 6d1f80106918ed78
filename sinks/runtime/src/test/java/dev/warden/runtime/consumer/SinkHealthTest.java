package dev.warden.runtime.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** When a sink counts as degraded. */
class SinkHealthTest {
    static final long SAMPLE = SinkHealth.SAMPLE_EVERY.toNanos();

    @Test
    void repeatedFailuresDegradeAndOneStoredBatchHeals() {
        SinkHealth health = new SinkHealth("s");
        health.failed("boom");
        health.failed("boom");
        assertThat(health.degradedReason()).isEmpty();
        health.failed("table gone");
        assertThat(health.degradedReason())
                .hasValueSatisfying(r -> assertThat(r).contains("failing").contains("table gone"));
        health.stored();
        assertThat(health.degradedReason()).isEmpty();
        assertThat(health.failedBatchCount()).isEqualTo(3);
    }

    @Test
    void aLagThatGrowsAtEverySampleAboveTheFloorDegradesAndAnyDropHeals() {
        SinkHealth health = new SinkHealth("s");
        long t = 0;
        for (int i = 0; i <= SinkHealth.GROWTH_SAMPLES; i++) {
            health.lag(2_000 + i * 500L, t += SAMPLE);
        }
        assertThat(health.degradedReason())
                .hasValueSatisfying(r -> assertThat(r).contains("falling behind"));
        health.lag(10, t += SAMPLE);
        assertThat(health.degradedReason()).isEmpty();

        SinkHealth small = new SinkHealth("small");
        for (int i = 0; i <= SinkHealth.GROWTH_SAMPLES; i++) {
            small.lag(10 + i, t += SAMPLE);
        }
        assertThat(small.degradedReason()).as("growing but below the floor").isEmpty();
    }
}
