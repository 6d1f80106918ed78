package dev.warden.launcher.roles;

import dev.warden.api.config.WardenConfig;
import dev.warden.api.observe.HealthCheck;
import dev.warden.pipeline.anomaly.AnomalyRules;
import dev.warden.pipeline.anomaly.AnomalyTopology;
import dev.warden.pipeline.budget.BudgetTopology;
import dev.warden.pipeline.dashboard.DashboardTopology;
import dev.warden.sinks.runtime.SinkWorker;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.LogAndContinueExceptionHandler;
import org.apache.kafka.streams.errors.LogAndContinueProcessingExceptionHandler;

/**
 * The {@code pipeline} role's aggregates: the Kafka Streams topologies for dashboard aggregates, budgets and
 * anomaly detection, in one application with exactly-once processing so a crash never counts anything twice. The
 * role's other part, the audit mirror, is {@link AuditMirrorRole}.
 */
public final class PipelineRole implements AutoCloseable {
    private final KafkaStreams streams;

    private PipelineRole(KafkaStreams streams) {
        this.streams = streams;
    }

    /** Starts the application. */
    public static PipelineRole start(WardenConfig config, String bootstrap) {
        StreamsBuilder builder = new StreamsBuilder();
        DashboardTopology.build(builder, config.kafka().topics().audit(), config.kafka().topics().dashboardHourly(),
                config.kafka().topics().dashboardTotals());
        BudgetTopology.build(builder, config.kafka().topics().events());
        AnomalyTopology.build(builder, config.kafka().topics().audit(), config.kafka().topics().events(),
                AnomalyRules.defaults());
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, config.streams().applicationPrefix() + "pipeline");
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.CLIENT_ID_CONFIG, config.instanceId() + "-pipeline");
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        // A record no processor can handle is logged, counted in the dropped-records metric and skipped: one
        // bad value never stops the application (the serdes already turn undecodable values into skips).
        p.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG, LogAndContinueExceptionHandler.class);
        p.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, LogAndContinueProcessingExceptionHandler.class);
        // Kafka Streams keeps its member in the group when it closes (it expects to come back); then a restart
        // waits out the old member's session timeout (45 s) before it gets its tasks. Leaving on close makes a
        // restart, and a handover to another instance, immediate.
        p.put(StreamsConfig.mainConsumerPrefix("internal.leave.group.on.close"), true);
        // Each commit ends an exactly-once transaction; one that wrote a budget or anomaly event onto
        // warden.events holds every later event back from committed readers (the SSE stream) until then. The
        // audit mirror, which writes on every decision, is its own application (AuditMirrorRole).
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, config.streams().pipelineCommitIntervalMs());
        p.put(StreamsConfig.STATE_DIR_CONFIG, config.streams().stateDir());
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, (int) config.kafka().topics().replicationFactor());
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.FETCH_MIN_BYTES_CONFIG), SinkWorker.BATCH_FETCH_MIN_BYTES);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), SinkWorker.BATCH_FETCH_MAX_WAIT_MS);
        KafkaStreams streams = new KafkaStreams(builder.build(), p);
        streams.start();
        return new PipelineRole(streams);
    }

    /** UP while the application is RUNNING. */
    public HealthCheck health() {
        return new StreamsHealth("pipeline-streams", streams);
    }

    @Override
    public void close() {
        // Leave the group on a clean stop: the next start (or the other instances) takes the tasks over at once
        // instead of waiting out this member's session timeout (45 s), which made a restart take ~50 s.
        streams.close(new KafkaStreams.CloseOptions().timeout(Duration.ofSeconds(15)).leaveGroup(true));
    }
}
