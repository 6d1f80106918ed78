package dev.warden.api.kafka;

import dev.warden.pipeline.contract.Topics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/** Creates Warden's topics when they are missing (ARCHITECTURE: Topics). Existing topics are left alone. */
public final class TopicProvisioner {
    private TopicProvisioner() {}

    /** The topics of {@code topics}, with their partition counts. */
    public static List<NewTopic> layout(Topics topics) {
        short rf = topics.replicationFactor();
        return List.of(
                new NewTopic(topics.audit(), topics.auditPartitions(), rf),
                // One partition: stream event ids are offsets and must be totally ordered.
                new NewTopic(topics.events(), 1, rf),
                new NewTopic(topics.quotaRequests(), topics.quotaPartitions(), rf),
                new NewTopic(topics.quotaReplies(), topics.quotaPartitions(), rf)
                        .configs(Map.of("retention.ms", "3600000")),
                new NewTopic(topics.dashboardHourly(), 1, rf)
                        .configs(Map.of(
                                "cleanup.policy", "compact,delete", "retention.ms", String.valueOf(49L * 3600_000))),
                new NewTopic(topics.dashboardTotals(), 1, rf).configs(Map.of("cleanup.policy", "compact")),
                new NewTopic(topics.budgetSpend(), 1, rf).configs(Map.of("cleanup.policy", "compact")));
    }

    /** Creates whichever of the layout's topics do not exist yet. */
    public static void ensure(Admin admin, Topics topics) {
        try {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            List<NewTopic> missing = new ArrayList<>();
            for (NewTopic topic : layout(topics)) {
                if (!existing.contains(topic.name())) {
                    missing.add(topic);
                }
            }
            if (missing.isEmpty()) {
                return;
            }
            for (var entry : admin.createTopics(missing).values().entrySet()) {
                try {
                    entry.getValue().get(30, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not create Kafka topics: " + e.getMessage(), e);
        }
    }
}
