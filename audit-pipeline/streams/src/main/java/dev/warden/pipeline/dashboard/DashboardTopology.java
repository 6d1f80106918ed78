package dev.warden.pipeline.dashboard;

import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditSerdes;
import java.time.Duration;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;

/**
 * Dashboard aggregates over {@code warden.audit}: per-agent decision counts in fixed clock-hour windows
 * (event time = decision time, one hour of grace for late records) and per-agent all-time totals. Both are
 * published to compacted topics ({@code <hour>|<agentId>} and {@code <agentId>} keys) that every API
 * instance reads into memory, so {@code GET /dashboard/stats} is correct with any number of instances and
 * never scans Postgres.
 */
public final class DashboardTopology {
    /** Hourly window length. */
    public static final Duration HOUR = Duration.ofHours(1);

    private DashboardTopology() {}

    /** Adds the topology to {@code builder}. */
    public static void build(StreamsBuilder builder, String auditTopic, String hourlyTopic, String totalsTopic) {
        KGroupedStream<String, AuditEntry> byAgent = builder.stream(
                        auditTopic,
                        Consumed.with(Serdes.String(), AuditSerdes.entries())
                                .withTimestampExtractor(AuditSerdes.decisionTime()))
                .filter((agent, entry) -> agent != null && entry != null && !entry.isAdministrative())
                .groupByKey(Grouped.with(Serdes.String(), AuditSerdes.entries()));

        byAgent.windowedBy(TimeWindows.ofSizeAndGrace(HOUR, HOUR))
                .aggregate(
                        () -> DecisionCounts.ZERO,
                        (agent, entry, counts) -> counts.plus(entry.result()),
                        Materialized.<String, DecisionCounts, WindowStore<Bytes, byte[]>>as("dashboard-hourly")
                                .withKeySerde(Serdes.String())
                                .withValueSerde(DecisionCounts.serde())
                                .withRetention(Duration.ofHours(50)))
                .toStream()
                .map((window, counts) ->
                        KeyValue.pair(hourKey(window.window().start() / HOUR.toMillis(), window.key()), counts))
                .to(hourlyTopic, Produced.with(Serdes.String(), DecisionCounts.serde()));

        byAgent.aggregate(
                        () -> DecisionCounts.ZERO,
                        (agent, entry, counts) -> counts.plus(entry.result()),
                        Materialized.<String, DecisionCounts, KeyValueStore<Bytes, byte[]>>as("dashboard-totals")
                                .withKeySerde(Serdes.String())
                                .withValueSerde(DecisionCounts.serde()))
                .toStream()
                .to(totalsTopic, Produced.with(Serdes.String(), DecisionCounts.serde()));
    }

    /** The key of an hourly bucket: {@code <hours since epoch>|<agentId>}. */
    public static String hourKey(long hour, String agentId) {
        return hour + "|" + agentId;
    }
}
