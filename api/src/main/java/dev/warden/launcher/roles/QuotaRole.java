package dev.warden.launcher.roles;

import dev.warden.api.config.WardenConfig;
import dev.warden.api.observe.HealthCheck;
import dev.warden.authorizer.quota.QuotaTopology;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.LogAndContinueExceptionHandler;
import org.apache.kafka.streams.errors.LogAndContinueProcessingExceptionHandler;

/**
 * The {@code quota} role: runs the quota topology as a Kafka Streams application with exactly-once
 * processing, so that a counter is incremented once per granted call even across crashes, and restored
 * from its changelog on restart. Any number of instances may run; each partition has one owner.
 */
public final class QuotaRole implements AutoCloseable {
    private final KafkaStreams streams;

    private QuotaRole(KafkaStreams streams) {
        this.streams = streams;
    }

    /** Starts the application (returns at once; health reports when it is RUNNING). */
    public static QuotaRole start(WardenConfig config, String bootstrap) {
        return start(config, bootstrap, OpenTelemetry.noop().getTracer("warden"));
    }

    /** As {@link #start(WardenConfig, String)}, with a span per traced quota request. */
    public static QuotaRole start(WardenConfig config, String bootstrap, Tracer tracer) {
        StreamsBuilder builder = new StreamsBuilder();
        QuotaTopology.build(builder, config.kafka().topics().quotaRequests(), config.kafka().topics().quotaReplies(),
                tracer);
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, config.streams().applicationPrefix() + "quota");
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.CLIENT_ID_CONFIG, config.instanceId() + "-quota");
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        // A record no processor can handle is logged, counted in the dropped-records metric and skipped: one
        // bad value never stops the application (the serdes already turn undecodable values into skips).
        p.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG, LogAndContinueExceptionHandler.class);
        p.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, LogAndContinueProcessingExceptionHandler.class);
        // Kafka Streams keeps its member in the group when it closes (it expects to come back); then a restart
        // waits out the old member's session timeout (45 s) before it gets its tasks. Leaving on close makes a
        // restart, and a handover to another instance, immediate.
        p.put(StreamsConfig.mainConsumerPrefix("internal.leave.group.on.close"), true);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, config.streams().commitIntervalMs());
        p.put(StreamsConfig.STATE_DIR_CONFIG, config.streams().stateDir());
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, (int) config.kafka().topics().replicationFactor());
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        p.put(StreamsConfig.consumerPrefix("fetch.max.wait.ms"), 10);
        p.put(StreamsConfig.producerPrefix("linger.ms"), 0);
        KafkaStreams streams = new KafkaStreams(builder.build(), p);
        streams.start();
        return new QuotaRole(streams);
    }

    /** UP while the application is RUNNING. */
    public HealthCheck health() {
        return new StreamsHealth("quota-streams", streams);
    }

    @Override
    public void close() {
        // Leave the group on a clean stop: the next start (or the other instances) takes the tasks over at once
        // instead of waiting out this member's session timeout (45 s), which made a restart take ~50 s.
        streams.close(new KafkaStreams.CloseOptions().timeout(Duration.ofSeconds(15)).leaveGroup(true));
    }
}
