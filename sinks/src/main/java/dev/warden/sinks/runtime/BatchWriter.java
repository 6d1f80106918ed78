package dev.warden.sinks.runtime;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Where a {@link SinkWorker} writes. A writer stores each batch together with the next offsets to read,
 * atomically, so that after any crash the worker resumes exactly after the last durable batch (Kafka's
 * "storing offsets outside Kafka"). Called from the worker's thread only.
 */
public interface BatchWriter {
    /**
     * The stored next offset of each partition, for those that have one.
     */
    Map<TopicPartition, Long> storedOffsets(Collection<TopicPartition> partitions);

    /**
     * Durably writes {@code records} and records {@code nextOffsets}, all or nothing.
     *
     * @return what was written, for the counters
     * @throws RuntimeException when nothing was written; the worker rewinds to the stored offsets and retries
     */
    WriteResult write(List<ConsumerRecord<String, byte[]>> records, Map<TopicPartition, Long> nextOffsets);

    /**
     * What one batch did.
     *
     * @param written rows newly stored (duplicates already stored are not counted)
     * @param dropped records that could not be decoded and were skipped (counted, never retried)
     */
    record WriteResult(long written, long dropped) {
    }

    /** Called after each durable batch, on the worker's thread; must not block for long. */
    default void afterCommit(WriteResult result) {
    }
}
