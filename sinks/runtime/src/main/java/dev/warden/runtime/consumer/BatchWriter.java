package dev.warden.runtime.consumer;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Where a {@link SinkWorker} writes. A writer stores each batch together with the next offsets to read,
 * atomically, so that after any crash the worker resumes exactly after the last durable batch (Kafka's
 * "storing offsets outside Kafka").
 *
 * <p>A write has two halves so that the worker can overlap them: {@link #prepare} (decoding, encoding; no I/O)
 * runs on the worker's polling thread while the previous batch is still being stored, and the
 * {@link PreparedBatch#store()} it returns runs on the worker's store thread. Stores run one at a time, in poll
 * order, and the worker waits for a store to end before it calls {@link #storedOffsets}, {@link #afterCommit}
 * or the next store (each such wait is a happens-before edge, so a writer needs no locking of its own).
 */
public interface BatchWriter {
    /**
     * The stored next offset of each partition, for those that have one.
     */
    Map<TopicPartition, Long> storedOffsets(Collection<TopicPartition> partitions);

    /**
     * Durably writes {@code records} and records {@code nextOffsets}, all or nothing. A record that cannot even
     * be decoded is dead-lettered in the same transaction (counted in {@link WriteResult#dropped()}).
     *
     * @return what was written, for the counters
     * @throws PoisonedBatchException when the store refused the batch's data: nothing was written, and the
     *                                worker isolates the culprit
     * @throws RuntimeException       when nothing was written for any other reason; the worker rewinds to the
     *                                stored offsets and retries
     */
    WriteResult write(List<ConsumerRecord<String, byte[]>> records, Map<TopicPartition, Long> nextOffsets);

    /**
     * Durably stores {@code letter} (a record the store refused on its own) and {@code nextOffsets}, all or
     * nothing, so the worker goes on after it.
     *
     * @throws RuntimeException when nothing was stored; the worker rewinds and retries
     */
    void deadLetter(DeadLetter letter, Map<TopicPartition, Long> nextOffsets);

    /**
     * The first half of {@link #write}: turns the polled records into a batch ready to store. The default
     * prepares nothing and stores with {@link #write}.
     */
    default PreparedBatch prepare(List<ConsumerRecord<String, byte[]>> records, Map<TopicPartition, Long> nextOffsets) {
        return () -> write(records, nextOffsets);
    }

    /** A batch ready to be stored: the second half of a write. */
    @FunctionalInterface
    interface PreparedBatch {
        /**
         * Durably writes the batch and its next offsets, all or nothing.
         *
         * @throws RuntimeException when nothing was written
         */
        WriteResult store();
    }

    /**
     * What one batch did.
     *
     * @param written rows newly stored (duplicates already stored are not counted)
     * @param dropped records dead-lettered: undecodable, or refused by the store (counted, never retried)
     */
    record WriteResult(long written, long dropped) {
        /** Both batches' results together. */
        public WriteResult plus(WriteResult other) {
            return new WriteResult(written + other.written, dropped + other.dropped);
        }
    }

    /** Called after each durable batch, on the worker's polling thread; must not block for long. */
    default void afterCommit(WriteResult result) {}

    /**
     * How long the worker waits before it reads the batch again after {@code failure}, the
     * {@code consecutiveFailures}-th failure in a row (1 for the first). The default is half a second; a writer that
     * delivers to a remote endpoint backs off further (and honours what the endpoint asked for).
     */
    default Duration retryDelay(Throwable failure, int consecutiveFailures) {
        return Duration.ofMillis(500);
    }

    /**
     * Stores {@code nextOffsets} as where the sink resumes, replacing what was stored (a replay from a timestamp).
     *
     * @throws UnsupportedOperationException for a writer that cannot be moved
     */
    default void resetOffsets(Map<TopicPartition, Long> nextOffsets) {
        throw new UnsupportedOperationException("this sink cannot be moved");
    }
}
