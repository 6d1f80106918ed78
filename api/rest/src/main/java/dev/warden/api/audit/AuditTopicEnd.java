package dev.warden.api.audit;

import dev.warden.api.authorize.AuditPublisher;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Logger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * What {@code GET /audit} waits for the writer to have stored, so that an {@code auditId} answered by any
 * instance is in the answer of every instance: the last offset of each partition of {@code warden.audit} as the
 * broker has it when the read starts (one {@code ListOffsets} round trip). If the broker cannot say in time, the
 * read falls back to the entries this instance published itself (read-your-writes on this instance only) and
 * says so in the log. Thread-safe.
 */
public final class AuditTopicEnd {
    private static final Logger LOG = Logger.getLogger(AuditTopicEnd.class.getName());
    private static final Duration ASK_TIMEOUT = Duration.ofSeconds(2);

    private final Admin admin;
    private final String topic;
    private final AuditPublisher publisher;
    private volatile List<TopicPartition> partitions = List.of();

    public AuditTopicEnd(Admin admin, String topic, AuditPublisher publisher) {
        this.admin = admin;
        this.topic = topic;
        this.publisher = publisher;
    }

    /** Partition to last offset written to it (partitions never written to are left out). */
    public Map<Integer, Long> lastOffsets() {
        try {
            Map<TopicPartition, OffsetSpec> ask = new HashMap<>();
            partitions().forEach(p -> ask.put(p, OffsetSpec.latest()));
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
                    admin.listOffsets(ask).all().get(ASK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            Map<Integer, Long> last = new HashMap<>();
            ends.forEach((partition, end) -> {
                if (end.offset() > 0) {
                    last.put(partition.partition(), end.offset() - 1);
                }
            });
            return last;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return publisher.acknowledgedOffsets();
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            LOG.warning("cannot read the end of " + topic + " (" + e.getMessage() + "); this read waits only for "
                    + "the audit entries of this instance");
            return publisher.acknowledgedOffsets();
        }
    }

    private List<TopicPartition> partitions() throws ExecutionException, InterruptedException, TimeoutException {
        if (partitions.isEmpty()) {
            partitions = admin
                    .describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(ASK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .get(topic)
                    .partitions()
                    .stream()
                    .map(p -> new TopicPartition(topic, p.partition()))
                    .toList();
        }
        return partitions;
    }
}
