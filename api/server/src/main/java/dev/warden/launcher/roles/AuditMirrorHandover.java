package dev.warden.launcher.roles;

import dev.warden.runtime.db.Database;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The upgrade from the audit mirror (a consumer group {@code <prefix>mirror} that copied {@code warden.audit} onto
 * {@code warden.events}, until the audit writer published the events itself): on the writer's first start with
 * events on, when nothing is marked published yet, the mirror's committed offsets become the marks
 * ({@code audit_event_publisher.marks}), so an entry the mirror already copied is not published again
 * (docs/operations.md, "Upgrading").
 */
final class AuditMirrorHandover {
    /** The retired mirror's name: its consumer group was {@code <prefix>mirror}. */
    static final String MIRROR = "mirror";

    private static final Logger LOG = Logger.getLogger(AuditMirrorHandover.class.getName());

    private AuditMirrorHandover() {}

    /**
     * When nothing is marked published yet ({@code audit_event_publisher.marks} is empty), fills the marks with
     * {@code mirrorGroup}'s committed offsets of {@code auditTopic}; answers how many partitions it took. Nothing to
     * take (no such group) takes nothing.
     */
    static int takeOver(Admin admin, Database db, String mirrorGroup, String auditTopic) {
        try (Connection conn = db.dataSource().getConnection()) {
            try (PreparedStatement ps = conn.prepareStatement(
                            "SELECT 1 FROM audit_event_publisher WHERE id = 1 AND cardinality(marks) > 0");
                    ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    return 0;
                }
            }
            Map<TopicPartition, OffsetAndMetadata> mirrored =
                    admin
                            .listConsumerGroupOffsets(mirrorGroup)
                            .partitionsToOffsetAndMetadata()
                            .get()
                            .entrySet()
                            .stream()
                            .filter(e -> e.getKey().topic().equals(auditTopic) && e.getValue() != null)
                            .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
            if (mirrored.isEmpty()) {
                return 0;
            }
            int partitions = mirrored.keySet().stream()
                            .mapToInt(TopicPartition::partition)
                            .max()
                            .orElse(-1)
                    + 1;
            Long[] marks = new Long[partitions];
            Arrays.fill(marks, 0L);
            mirrored.forEach((partition, offset) -> marks[partition.partition()] = offset.offset());
            try (PreparedStatement ps = conn.prepareStatement(
                    "UPDATE audit_event_publisher SET marks = ? WHERE id = 1 AND cardinality(marks) = 0")) {
                ps.setArray(1, conn.createArrayOf("bigint", marks));
                if (ps.executeUpdate() == 0) {
                    return 0; // a writer marked something meanwhile
                }
            }
            LOG.info("audit events: took the retired audit mirror's offsets of " + auditTopic + " (" + mirrored.size()
                    + " partitions) as published");
            return mirrored.size();
        } catch (SQLException | ExecutionException e) {
            LOG.warning("audit events: the audit mirror's offsets not taken over: " + e);
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
