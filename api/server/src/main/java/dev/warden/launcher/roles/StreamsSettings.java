package dev.warden.launcher.roles;

import dev.warden.api.config.WardenConfig;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.LogAndContinueExceptionHandler;
import org.apache.kafka.streams.errors.LogAndContinueProcessingExceptionHandler;

/**
 * What every Kafka Streams application of Warden (quota, pipeline) is run with: exactly-once, one
 * bad record never stops it, and it leaves its group when it stops so that a restart is immediate.
 */
final class StreamsSettings {
    private StreamsSettings() {}

    /**
     * The shared settings of the application {@code <prefix><name>} (client id {@code <instance>-<name>}),
     * committing every {@code commitIntervalMs}; each role adds its own fetch and send settings.
     */
    static Properties of(WardenConfig config, String bootstrap, String name, long commitIntervalMs) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId(config, name));
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.CLIENT_ID_CONFIG, config.instanceId() + "-" + name);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        // A record no processor can handle is logged, counted in the dropped-records metric and skipped: one
        // bad value never stops the application (the serdes already turn undecodable values into skips).
        p.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG, LogAndContinueExceptionHandler.class);
        p.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, LogAndContinueProcessingExceptionHandler.class);
        // Kafka Streams keeps its member in the group when it closes (it expects to come back); then a restart
        // waits out the old member's session timeout (45 s) before it gets its tasks. Leaving on close makes a
        // restart, and a handover to another instance, immediate.
        p.put(StreamsConfig.mainConsumerPrefix("internal.leave.group.on.close"), true);
        // The main consumer is in the group: its heartbeat thread wakes every retry.backoff.ms (1 s in warden dev) and
        // it heartbeats every heartbeat.interval.ms (10 s in warden dev), as the sink workers' consumers do.
        SinksRole.backgroundWaits(config)
                .groupSettings()
                .forEach((key, value) -> p.put(StreamsConfig.mainConsumerPrefix(key), value));
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, commitIntervalMs);
        // What waits on a loop turn asks for its commit (a quota reply, a budget or anomaly event: D193), so the
        // loop's poll sets how often the idle loop wakes and what else waits at most one turn: the background wait
        // (1 s in warden dev; 100 ms, the Streams default, elsewhere).
        p.put(
                StreamsConfig.POLL_MS_CONFIG,
                config.streams().backgroundFetchWait().toMillis());
        p.put(StreamsConfig.STATE_DIR_CONFIG, config.streams().stateDir());
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, (int)
                config.kafka().topics().replicationFactor());
        return p;
    }

    /** The application id (and consumer group) of the application {@code name}: {@code <prefix><name>}. */
    static String applicationId(WardenConfig config, String name) {
        return config.streams().applicationPrefix() + name;
    }

    /**
     * Stops {@code streams}, leaving the group: the next start (or the other instances) takes the tasks over at
     * once instead of waiting out this member's session timeout (45 s), which made a restart take ~50 s.
     */
    static void close(KafkaStreams streams) {
        streams.close(
                new KafkaStreams.CloseOptions().timeout(Duration.ofSeconds(15)).leaveGroup(true));
    }
}
