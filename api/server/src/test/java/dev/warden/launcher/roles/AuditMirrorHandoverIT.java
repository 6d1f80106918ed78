package dev.warden.launcher.roles;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.api.kafka.KafkaClients;
import dev.warden.runtime.db.Database;
import dev.warden.testing.TestPlatform;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The upgrade from the retired audit mirror, on a real broker and database: the audit writer's first start takes
 * the mirror's committed offsets of the audit topic (and only those) as what is already published, so nothing the
 * mirror copied is published twice; once anything is marked, it never takes them again.
 */
class AuditMirrorHandoverIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b -> b.roles("api"));

    @Test
    void theFirstStartTakesTheMirrorsOffsetsOfTheAuditTopicAndLaterStartsKeepTheirOwnMarks() throws Exception {
        String mirror = "handover-" + UUID.randomUUID() + "-mirror";
        String audit = warden.topics().audit();
        try (Database db = Database.connect(
                        warden.infra().jdbcUrl(), warden.config().postgres().pool());
                Admin admin = KafkaClients.admin(warden.infra().kafkaBootstrap(), "handover-it")) {
            assertThat(AuditMirrorHandover.takeOver(admin, db, mirror, audit))
                    .as("no mirror group: nothing to take")
                    .isZero();
            assertThat(marks(db)).isEmpty();

            admin.alterConsumerGroupOffsets(
                            mirror,
                            Map.of(
                                    new TopicPartition(audit, 0), new OffsetAndMetadata(5),
                                    new TopicPartition(audit, 1), new OffsetAndMetadata(7),
                                    new TopicPartition(warden.topics().events(), 0), new OffsetAndMetadata(3)))
                    .all()
                    .get();
            assertThat(AuditMirrorHandover.takeOver(admin, db, mirror, audit)).isEqualTo(2);
            assertThat(marks(db))
                    .as("the audit topic's offsets, and only those")
                    .isEqualTo(Map.of(0, 5L, 1, 7L));

            admin.alterConsumerGroupOffsets(mirror, Map.of(new TopicPartition(audit, 0), new OffsetAndMetadata(9)))
                    .all()
                    .get();
            assertThat(AuditMirrorHandover.takeOver(admin, db, mirror, audit)).isZero();
            assertThat(marks(db)).as("marks of its own are kept").isEqualTo(Map.of(0, 5L, 1, 7L));
        }
    }

    private static Map<Integer, Long> marks(Database db) throws Exception {
        Map<Integer, Long> out = new TreeMap<>();
        try (Connection conn = db.dataSource().getConnection();
                Statement st = conn.createStatement();
                ResultSet rs = st.executeQuery("SELECT p - 1, marks[p] FROM audit_event_publisher, "
                        + "generate_subscripts(marks, 1) AS p WHERE marks[p] > 0")) {
            while (rs.next()) {
                out.put(rs.getInt(1), rs.getLong(2));
            }
        }
        return out;
    }
}
