package dev.warden.runtime.consumer;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * How long a consumer in a group waits: for a batch to fill ({@code fetch.max.wait.ms}), before it retries a failed
 * request ({@code retry.backoff.ms}), which is also how often its heartbeat thread wakes to see whether a heartbeat
 * is due, and between heartbeats ({@code heartbeat.interval.ms}). They set what the consumer costs while idle: one
 * fetch per wait, one wake of its heartbeat thread per backoff, one request to the group coordinator per heartbeat.
 *
 * @param fetchMaxWait      the longest the broker holds a fetch while fewer bytes than asked for are there
 * @param retryBackoff      the wait before a failed request is retried, and the heartbeat thread's tick
 * @param heartbeatInterval the time between heartbeats: how soon a member learns of a rebalance
 */
public record GroupWaits(Duration fetchMaxWait, Duration retryBackoff, Duration heartbeatInterval) {
    /** Kafka's own {@code retry.backoff.ms}. */
    public static final Duration KAFKA_RETRY_BACKOFF = Duration.ofMillis(100);
    /** Kafka's own {@code retry.backoff.max.ms}: the ceiling of the exponential backoff. */
    private static final Duration KAFKA_RETRY_BACKOFF_MAX = Duration.ofSeconds(1);
    /** Kafka's own {@code heartbeat.interval.ms}. */
    public static final Duration KAFKA_HEARTBEAT_INTERVAL = Duration.ofSeconds(3);

    public GroupWaits {
        if (fetchMaxWait.isNegative()
                || retryBackoff.isNegative()
                || retryBackoff.isZero()
                || heartbeatInterval.isNegative()
                || heartbeatInterval.isZero()) {
            throw new IllegalArgumentException("a group consumer's waits must be positive: " + fetchMaxWait + ", "
                    + retryBackoff + ", " + heartbeatInterval);
        }
    }

    /** {@code fetchMaxWait}, with Kafka's retry backoff and heartbeat interval. */
    public static GroupWaits fetching(Duration fetchMaxWait) {
        return new GroupWaits(fetchMaxWait, KAFKA_RETRY_BACKOFF, KAFKA_HEARTBEAT_INTERVAL);
    }

    /** The same retry backoff and heartbeat interval, with another fetch wait. */
    public GroupWaits withFetchMaxWait(Duration wait) {
        return new GroupWaits(wait, retryBackoff, heartbeatInterval);
    }

    /** Sets all three in a consumer's settings. */
    public void applyTo(Properties consumer) {
        consumer.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, (int) fetchMaxWait.toMillis());
        consumer.putAll(groupSettings());
    }

    /**
     * The settings of a group member apart from its fetch wait: its {@code retry.backoff.ms}, the ceiling of its
     * exponential backoff ({@code retry.backoff.max.ms}) never under it, and its {@code heartbeat.interval.ms}.
     */
    public Map<String, Object> groupSettings() {
        return Map.of(
                CommonClientConfigs.RETRY_BACKOFF_MS_CONFIG,
                retryBackoff.toMillis(),
                CommonClientConfigs.RETRY_BACKOFF_MAX_MS_CONFIG,
                Math.max(retryBackoff.toMillis(), KAFKA_RETRY_BACKOFF_MAX.toMillis()),
                ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG,
                (int) heartbeatInterval.toMillis());
    }
}
