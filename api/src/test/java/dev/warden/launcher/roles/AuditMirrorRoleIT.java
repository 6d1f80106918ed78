package dev.warden.launcher.roles;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.api.kafka.KafkaClients;
import dev.warden.testing.TestPlatform;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The mirror's handover from the pipeline application (where it ran before it had an application of its own): on
 * its first start it continues exactly where the pipeline application stopped reading the audit topic, and once it
 * has offsets of its own it never takes any again. Real broker.
 */
class AuditMirrorRoleIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform();

    @Test
    void theFirstStartContinuesFromThePipelinesOffsetsOfTheAuditTopicAndLaterStartsKeepTheirOwn() throws Exception {
        String run = "handover-" + UUID.randomUUID();
        String audit = run + ".audit";
        String pipeline = run + "-pipeline";
        String mirror = run + "-mirror";
        try (Admin admin = KafkaClients.admin(warden.infra().kafkaBootstrap(), run)) {
            admin.createTopics(List.of(new NewTopic(audit, 2, (short) 1), new NewTopic(run + ".other", 1, (short) 1)))
                    .all().get();
            awaitLeaders(admin, audit, run + ".other");

            AuditMirrorRole.takeOverOffsets(admin, pipeline, mirror, audit);
            assertThat(offsets(admin, mirror)).as("nothing to take over: the mirror starts as any application does")
                    .isEmpty();

            admin.alterConsumerGroupOffsets(pipeline, Map.of(
                    new TopicPartition(audit, 0), new OffsetAndMetadata(5),
                    new TopicPartition(audit, 1), new OffsetAndMetadata(7),
                    new TopicPartition(run + ".other", 0), new OffsetAndMetadata(3))).all().get();
            AuditMirrorRole.takeOverOffsets(admin, pipeline, mirror, audit);
            assertThat(offsets(admin, mirror)).as("the audit topic's offsets, and only those")
                    .isEqualTo(Map.of(new TopicPartition(audit, 0), 5L, new TopicPartition(audit, 1), 7L));

            admin.alterConsumerGroupOffsets(pipeline, Map.of(new TopicPartition(audit, 0), new OffsetAndMetadata(9)))
                    .all().get();
            AuditMirrorRole.takeOverOffsets(admin, pipeline, mirror, audit);
            assertThat(offsets(admin, mirror)).as("a mirror with offsets of its own keeps them")
                    .isEqualTo(Map.of(new TopicPartition(audit, 0), 5L, new TopicPartition(audit, 1), 7L));
        }
    }

    /** Until the broker knows every partition's leader: offsets of a topic it has not loaded yet are refused. */
    private static void awaitLeaders(Admin admin, String... topics) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!leadersKnown(admin, topics)) {
            assertThat(System.nanoTime()).as("partitions without a leader after 30 s").isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private static boolean leadersKnown(Admin admin, String... topics) throws Exception {
        try {
            return admin.describeTopics(List.of(topics)).allTopicNames().get().values().stream()
                    .allMatch(t -> t.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty()));
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return false; // created, not loaded yet
            }
            throw e;
        }
    }

    private static Map<TopicPartition, Long> offsets(Admin admin, String group) throws Exception {
        return admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().entrySet().stream()
                .filter(e -> e.getValue() != null)
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }
}
