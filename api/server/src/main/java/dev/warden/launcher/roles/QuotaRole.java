package dev.warden.launcher.roles;

import dev.warden.api.Component;
import dev.warden.api.config.WardenConfig;
import dev.warden.api.observe.HealthCheck;
import dev.warden.authorizer.quota.PolledBatchEnds;
import dev.warden.authorizer.quota.QuotaTopology;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The {@code quota} role: runs the quota topology as a Kafka Streams application with exactly-once
 * processing, so that a counter is incremented once per granted call even across crashes, and restored
 * from its changelog on restart. Any number of instances may run; each partition has one owner.
 */
public final class QuotaRole implements Component {
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
        QuotaTopology.build(
                builder,
                config.kafka().topics().quotaRequests(),
                config.kafka().topics().quotaReplies(),
                tracer);
        Properties p =
                StreamsSettings.of(config, bootstrap, "quota", config.streams().commitIntervalMs());
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        // fetch.min.bytes is 1: the broker answers a fetch as soon as a request is there, so the wait costs no
        // latency; it only sets how often an idle instance asks (10 ms made it 100 fetches a second, the largest
        // share of an idle `warden dev`: docs/benchmarks-notebook.md, "Idle `warden dev`: the levers"), and how
        // long the stop waits for the fetch the broker holds (D195).
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), (int)
                config.streams().quotaFetchWait().toMillis());
        p.put(StreamsConfig.producerPrefix("linger.ms"), 0);
        // The last reply of each poll asks for its commit (QuotaTopology), which needs to know the poll's last
        // offsets: then the loop's poll (StreamsSettings) only sets how often the idle loop wakes.
        p.put(
                StreamsConfig.mainConsumerPrefix(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG),
                PolledBatchEnds.class.getName());
        KafkaStreams streams = new KafkaStreams(builder.build(), p);
        streams.start();
        return new QuotaRole(streams);
    }

    @Override
    public List<HealthCheck> healthChecks() {
        return List.of(health());
    }

    /** UP while the application is RUNNING. */
    public HealthCheck health() {
        return new StreamsHealth("quota-streams", streams);
    }

    @Override
    public void close() {
        StreamsSettings.close(streams);
    }
}
