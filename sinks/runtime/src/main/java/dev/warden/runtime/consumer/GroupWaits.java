package dev.warden.runtime.consumer;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * How long a consumer in a group waits: for a batch to fill ({@code fetch.max.wait.ms}), and before it retries a
 * failed request ({@code retry.backoff.ms}), which is also how often its heartbeat thread wakes to see whether a
 * heartbeat is due. Both set what the consumer costs while idle: one fetch per wait, one wake of its heartbeat
 * thread per backoff.
 *
 * @param fetchMaxWait the longest the broker holds a fetch while fewer bytes than asked for are there
 * @param retryBackoff the wait before a failed request is retried, and the heartbeat thread's tick
 */
public record GroupWaits(Duration fetchMaxWait, Duration retryBackoff) {
    /** Kafka's own {@code retry.backoff.ms}. */
    public static final Duration KAFKA_RETRY_BACKOFF = Duration.ofMillis(100);
    /** Kafka's own {@code retry.backoff.max.ms}: the ceiling of the exponential backoff. */
    private static final Duration KAFKA_RETRY_BACKOFF_MAX = Duration.ofSeconds(1);

    public GroupWaits {
        if (fetchMaxWait.isNegative() || retryBackoff.isNegative() || retryBackoff.isZero()) {
            throw new IllegalArgumentException(
                    "a group consumer's waits must be positive: " + fetchMaxWait + ", " + retryBackoff);
        }
    }

    /** {@code fetchMaxWait}, with Kafka's retry backoff. */
    public static GroupWaits fetching(Duration fetchMaxWait) {
        return new GroupWaits(fetchMaxWait, KAFKA_RETRY_BACKOFF);
    }

    /** The same retry backoff, with another fetch wait. */
    public GroupWaits withFetchMaxWait(Duration wait) {
        return new GroupWaits(wait, retryBackoff);
    }

    /** Sets both in a consumer's settings. */
    public void applyTo(Properties consumer) {
        consumer.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, (int) fetchMaxWait.toMillis());
        consumer.putAll(retrySettings(retryBackoff));
    }

    /**
     * A client's {@code retry.backoff.ms} at {@code backoff}, and the ceiling of its exponential backoff
     * ({@code retry.backoff.max.ms}) never under it.
     */
    public static Map<String, Object> retrySettings(Duration backoff) {
        return Map.of(
                CommonClientConfigs.RETRY_BACKOFF_MS_CONFIG,
                backoff.toMillis(),
                CommonClientConfigs.RETRY_BACKOFF_MAX_MS_CONFIG,
                Math.max(backoff.toMillis(), KAFKA_RETRY_BACKOFF_MAX.toMillis()));
    }
}
