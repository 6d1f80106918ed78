package dev.warden.authorizer.quota;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Remembers, for the thread that polls, the last offset of each partition in its latest poll, so that a processor
 * running on that thread (a Kafka Streams thread polls and processes) can tell the last record of a poll: after it,
 * the thread has nothing more to process until the next poll. Installed as the quota application's main consumer's
 * interceptor ({@code main.consumer.interceptor.classes}); records pass through unchanged.
 */
public final class PolledBatchEnds implements ConsumerInterceptor<byte[], byte[]> {
    private static final ThreadLocal<Map<TopicPartition, Long>> LAST_POLLED = ThreadLocal.withInitial(HashMap::new);

    /**
     * Whether {@code offset} is at or past the last offset of {@code partition} that this thread's latest poll
     * brought; true also when this thread has not polled the partition through the interceptor (then every record
     * counts as the last: correct, only slower).
     */
    public static boolean isLastPolled(TopicPartition partition, long offset) {
        Long last = LAST_POLLED.get().get(partition);
        return last == null || offset >= last;
    }

    @Override
    public ConsumerRecords<byte[], byte[]> onConsume(ConsumerRecords<byte[], byte[]> records) {
        Map<TopicPartition, Long> last = LAST_POLLED.get();
        for (TopicPartition partition : records.partitions()) {
            List<ConsumerRecord<byte[], byte[]>> polled = records.records(partition);
            last.put(partition, polled.getLast().offset());
        }
        return records;
    }

    @Override
    public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {}

    @Override
    public void close() {}

    @Override
    public void configure(Map<String, ?> configs) {}
}
