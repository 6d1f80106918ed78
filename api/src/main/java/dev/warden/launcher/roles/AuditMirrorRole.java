package dev.warden.launcher.roles;

import dev.warden.api.config.WardenConfig;
import dev.warden.api.observe.HealthCheck;
import dev.warden.api.observe.HealthCheck.Result;
import dev.warden.pipeline.mirror.AuditMirror;
import io.opentelemetry.api.trace.Tracer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The audit mirror, part of the {@code pipeline} role: an {@link AuditMirror} (consumer group
 * {@code <prefix>mirror}) that turns every {@code warden.audit} entry into one {@code audit} event on
 * {@code warden.events}, exactly once, many to a record.
 * <p>
 * It is apart from the pipeline's aggregates because its transactions decide how long every later event on
 * {@code warden.events} waits for the SSE stream (a committed reader): it commits every
 * {@code warden.streams.mirror-commit-interval-ms} (20 ms), which a stateless copy can afford and the aggregates
 * (state stores, changelogs) cannot, and it fetches for at most 5 ms rather than the aggregates' 100 ms.
 * Measured in docs/benchmarks.md ("Stream: {@code audit} events' SSE latency and throughput cost").
 * <p>
 * The mirror used to run inside the pipeline application. On its first start (its group has no offsets) it takes
 * over the pipeline application's committed {@code warden.audit} offsets, so an upgrade neither repeats nor skips
 * an entry, provided no older pipeline instance still mirrors (docs/operations.md: stop them first).
 */
public final class AuditMirrorRole implements AutoCloseable {
    /** The mirror's name: its consumer group is {@code <prefix>mirror}. */
    static final String NAME = "mirror";
    private static final Logger LOG = Logger.getLogger(AuditMirrorRole.class.getName());

    private final AuditMirror mirror;

    private AuditMirrorRole(AuditMirror mirror) {
        this.mirror = mirror;
    }

    /** Starts the mirror; {@code tracer} continues the traces audit entries carry. */
    public static AuditMirrorRole start(WardenConfig config, String bootstrap, Admin admin, Tracer tracer) {
        String group = StreamsSettings.applicationId(config, NAME);
        takeOverOffsets(admin, StreamsSettings.applicationId(config, PipelineRole.NAME), group,
                config.kafka().topics().audit());
        return new AuditMirrorRole(new AuditMirror(bootstrap, config.kafka().topics().audit(),
                config.kafka().topics().events(), group, group + "-" + config.instanceId(),
                config.instanceId() + "-" + NAME, Duration.ofMillis(config.streams().mirrorCommitIntervalMs()), tracer)
                .start());
    }

    /**
     * When {@code mirrorGroup} has no committed offsets, gives it {@code pipelineGroup}'s committed offsets of
     * {@code auditTopic} (where the mirror stopped when it ran inside the pipeline application). A group that has
     * neither starts at the topic's beginning, as every Streams application does.
     */
    static void takeOverOffsets(Admin admin, String pipelineGroup, String mirrorGroup, String auditTopic) {
        try {
            if (!committed(admin, mirrorGroup, auditTopic).isEmpty()) {
                return;
            }
            Map<TopicPartition, OffsetAndMetadata> previous = committed(admin, pipelineGroup, auditTopic);
            if (previous.isEmpty()) {
                return;
            }
            admin.alterConsumerGroupOffsets(mirrorGroup, previous).all().get();
            LOG.info("audit mirror: took over the pipeline application's offsets of " + auditTopic + " ("
                    + previous.size() + " partitions)");
        } catch (ExecutionException e) {
            // Another instance started the mirror first (its group is not empty): it has offsets already.
            LOG.warning("audit mirror: offsets not taken over: " + e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static Map<TopicPartition, OffsetAndMetadata> committed(Admin admin, String group, String topic)
            throws ExecutionException, InterruptedException {
        return admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().entrySet().stream()
                .filter(e -> e.getKey().topic().equals(topic) && e.getValue() != null)
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    /** UP while the mirror runs. */
    public HealthCheck health() {
        return HealthCheck.of("audit-mirror", () -> {
            AuditMirror.State state = mirror.state();
            return state == AuditMirror.State.RUNNING ? Result.up("RUNNING") : Result.down(state.name());
        });
    }

    @Override
    public void close() {
        mirror.close();
    }
}
