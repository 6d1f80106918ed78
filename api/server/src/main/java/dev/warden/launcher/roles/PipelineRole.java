package dev.warden.launcher.roles;

import dev.warden.api.Component;
import dev.warden.api.config.WardenConfig;
import dev.warden.api.observe.HealthCheck;
import dev.warden.pipeline.anomaly.AnomalyRules;
import dev.warden.pipeline.anomaly.AnomalyTopology;
import dev.warden.pipeline.budget.BudgetTopology;
import dev.warden.pipeline.dashboard.DashboardTopology;
import dev.warden.runtime.consumer.SinkWorker;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The {@code pipeline} role's aggregates: the Kafka Streams topologies for dashboard aggregates, budgets and
 * anomaly detection, in one application with exactly-once processing so a crash never counts anything twice. (The
 * {@code audit} stream events are published by the audit writer, in the sinks role.)
 */
public final class PipelineRole implements Component {
    /** The application's name: its id and consumer group are {@code <prefix>pipeline}. */
    static final String NAME = "pipeline";

    private final KafkaStreams streams;

    private PipelineRole(KafkaStreams streams) {
        this.streams = streams;
    }

    /** Starts the application. */
    public static PipelineRole start(WardenConfig config, String bootstrap) {
        StreamsBuilder builder = new StreamsBuilder();
        DashboardTopology.build(
                builder,
                config.kafka().topics().audit(),
                config.kafka().topics().dashboardHourly(),
                config.kafka().topics().dashboardTotals());
        BudgetTopology.build(
                builder,
                config.kafka().topics().events(),
                config.kafka().topics().budgetSpend());
        AnomalyTopology.build(
                builder,
                config.kafka().topics().audit(),
                config.kafka().topics().events(),
                AnomalyRules.defaults());
        // Each commit ends an exactly-once transaction; one that wrote a budget or anomaly event onto
        // warden.events holds every later event back from committed readers (the SSE stream) until then.
        Properties p =
                StreamsSettings.of(config, bootstrap, NAME, config.streams().pipelineCommitIntervalMs());
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.FETCH_MIN_BYTES_CONFIG), SinkWorker.BATCH_FETCH_MIN_BYTES);
        // Nobody waits on a batch of aggregates: its wait is the background readers' (1 s in warden dev). An
        // aggregate is committed at the first loop turn after the commit interval, so at most one poll later
        // (StreamsSettings); a budget.exceeded or anomaly.detected event asks for its commit in the turn that made it
        // (BudgetTopology, AnomalyTopology).
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), (int)
                config.streams().backgroundFetchWait().toMillis());
        KafkaStreams streams = new KafkaStreams(builder.build(), p);
        streams.start();
        return new PipelineRole(streams);
    }

    @Override
    public List<HealthCheck> healthChecks() {
        return List.of(health());
    }

    /** UP while the application is RUNNING. */
    public HealthCheck health() {
        return new StreamsHealth("pipeline-streams", streams);
    }

    @Override
    public void close() {
        StreamsSettings.close(streams);
    }
}
