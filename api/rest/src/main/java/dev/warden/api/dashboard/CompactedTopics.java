package dev.warden.api.dashboard;

import dev.warden.runtime.consumer.ConsumerLoop;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Following one-partition compacted topics the pipeline publishes, from their beginning, into an in-memory copy
 * (the dashboard aggregates, the budget spend): committed records only, no consumer group, nothing committed.
 */
final class CompactedTopics {
    private CompactedTopics() {}

    /** A loop named {@code name} that reads {@code topics} from their start and hands each poll to {@code apply}. */
    static <V> ConsumerLoop<String, V> follow(
            String name,
            String bootstrap,
            String clientId,
            List<String> topics,
            Deserializer<V> values,
            java.util.function.Consumer<ConsumerRecords<String, V>> apply) {
        KafkaConsumer<String, V> consumer = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrap,
                        ConsumerConfig.CLIENT_ID_CONFIG,
                        clientId,
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        false,
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        "read_committed"),
                new StringDeserializer(),
                values);
        List<TopicPartition> partitions =
                topics.stream().map(t -> new TopicPartition(t, 0)).toList();
        return new ConsumerLoop<>(name, consumer, Duration.ofMillis(200), new ConsumerLoop.Handler<>() {
            @Override
            public void start(Consumer<String, V> c) {
                c.assign(partitions);
                c.seekToBeginning(partitions);
            }

            @Override
            public void handle(ConsumerRecords<String, V> records, Consumer<String, V> c) {
                apply.accept(records);
            }
        });
    }
}
