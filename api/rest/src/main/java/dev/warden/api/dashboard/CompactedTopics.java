package dev.warden.api.dashboard;

import dev.warden.runtime.consumer.ConsumerLoop;
import java.util.List;
import org.apache.kafka.clients.consumer.Consumer;
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
        KafkaConsumer<String, V> consumer =
                new KafkaConsumer<>(ConsumerLoop.readerSettings(bootstrap, clientId), new StringDeserializer(), values);
        List<TopicPartition> partitions =
                topics.stream().map(t -> new TopicPartition(t, 0)).toList();
        return ConsumerLoop.reader(name, consumer, new ConsumerLoop.Handler<>() {
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
