package dev.warden.api.dashboard;

import dev.warden.pipeline.dashboard.DecisionCounts;
import dev.warden.runtime.consumer.ConsumerLoop;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.logging.Logger;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * This instance's in-memory copy of the dashboard aggregates the pipeline publishes (hourly and all-time
 * per-agent decision counts), read from the start of both compacted topics and kept current. Thread-safe.
 */
public final class DashboardView implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(DashboardView.class.getName());

    private final String totalsTopic;
    private final Map<String, DecisionCounts> totals = new ConcurrentHashMap<>();
    private final Map<Long, Map<String, DecisionCounts>> hours = new ConcurrentHashMap<>();
    private final ConsumerLoop<String, DecisionCounts> loop;

    public DashboardView(String bootstrap, String hourlyTopic, String totalsTopic, String clientId) {
        this.totalsTopic = totalsTopic;
        this.loop = CompactedTopics.follow(
                "warden-dashboard-view",
                bootstrap,
                clientId,
                List.of(hourlyTopic, totalsTopic),
                DecisionCounts.serde().deserializer(),
                records -> {
                    records.forEach(this::apply);
                    evictOldHours();
                });
    }

    /** Starts following both topics from their beginning. */
    public void start() {
        loop.start();
    }

    /** Sum of the all-time counts of the agents {@code include} accepts. */
    public DecisionCounts total(Predicate<String> include) {
        return sum(totals, include);
    }

    /** Per-agent counts over the hours {@code [fromHour, toHour]} (hours since the epoch, UTC). */
    public Map<String, DecisionCounts> perAgent(long fromHour, long toHour, Predicate<String> include) {
        Map<String, DecisionCounts> out = new HashMap<>();
        for (long h = fromHour; h <= toHour; h++) {
            Map<String, DecisionCounts> bucket = hours.get(h);
            if (bucket != null) {
                bucket.forEach((agent, counts) -> {
                    if (include.test(agent)) {
                        out.merge(agent, counts, DecisionCounts::plus);
                    }
                });
            }
        }
        return out;
    }

    private static DecisionCounts sum(Map<String, DecisionCounts> counts, Predicate<String> include) {
        DecisionCounts sum = DecisionCounts.ZERO;
        for (Map.Entry<String, DecisionCounts> e : counts.entrySet()) {
            if (include.test(e.getKey())) {
                sum = sum.plus(e.getValue());
            }
        }
        return sum;
    }

    private void apply(ConsumerRecord<String, DecisionCounts> record) {
        if (record.key() == null || record.value() == null) {
            return;
        }
        if (record.topic().equals(totalsTopic)) {
            totals.put(record.key(), record.value());
            return;
        }
        int bar = record.key().indexOf('|');
        if (bar <= 0) {
            return;
        }
        try {
            long hour = Long.parseLong(record.key().substring(0, bar));
            hours.computeIfAbsent(hour, h -> new ConcurrentHashMap<>())
                    .put(record.key().substring(bar + 1), record.value());
        } catch (NumberFormatException e) {
            LOG.fine("skipping dashboard key " + record.key());
        }
    }

    private void evictOldHours() {
        long newest = hours.keySet().stream().mapToLong(Long::longValue).max().orElse(Long.MIN_VALUE);
        hours.keySet().removeIf(h -> h < newest - 48);
    }

    /** The state of this consumer's loop, for health. */
    public ConsumerLoop.Health health() {
        return loop.health();
    }

    @Override
    public void close() {
        loop.close();
    }
}
