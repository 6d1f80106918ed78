package dev.warden.runtime.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Test;

/** What a group member's waits put in its consumer's settings. */
class GroupWaitsTest {
    @Test
    void theFetchWaitRetryBackoffAndHeartbeatIntervalReachTheConsumer() {
        Properties p = new Properties();
        new GroupWaits(Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(10)).applyTo(p);

        assertThat(p)
                .containsEntry(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 500)
                .containsEntry(CommonClientConfigs.RETRY_BACKOFF_MS_CONFIG, 1_000L)
                .containsEntry(CommonClientConfigs.RETRY_BACKOFF_MAX_MS_CONFIG, 1_000L)
                .containsEntry(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 10_000);
    }

    @Test
    void kafkasOwnBackoffAndHeartbeatUnlessSaidOtherwise() {
        GroupWaits waits = GroupWaits.fetching(Duration.ofMillis(100)).withFetchMaxWait(Duration.ofMillis(20));

        assertThat(waits.groupSettings())
                .containsEntry(CommonClientConfigs.RETRY_BACKOFF_MS_CONFIG, 100L)
                .as("the exponential backoff's ceiling never under the backoff: Kafka's 1 s")
                .containsEntry(CommonClientConfigs.RETRY_BACKOFF_MAX_MS_CONFIG, 1_000L)
                .containsEntry(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 3_000);
        assertThat(waits.fetchMaxWait()).isEqualTo(Duration.ofMillis(20));
    }

    @Test
    void aWaitThatIsNotPositiveIsRefused() {
        assertThatThrownBy(() -> new GroupWaits(Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new GroupWaits(Duration.ofMillis(100), Duration.ZERO, Duration.ofSeconds(3)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new GroupWaits(Duration.ofMillis(-1), Duration.ofSeconds(1), Duration.ofSeconds(3)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
