package dev.warden.runtime.consumer;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.kafka.common.TopicPartition;

/**
 * The transaction of a writer that stores rows in PostgreSQL beside its position ({@link BatchWriter#write}): the
 * rows, the dead letters of the records that could not be decoded, and the next offsets commit together or not at
 * all. A refusal for the data is a {@link PoisonedBatchException} (the worker isolates the culprit); any other
 * failure leaves nothing written and is retried.
 */
public final class BatchTransaction {
    /** What a batch writes in the transaction. */
    @FunctionalInterface
    public interface Work {
        /**
         * Writes the batch's rows in {@code conn}'s transaction, adding to {@code deadLetters} each record it cannot
         * decode.
         *
         * @return the rows newly written
         */
        long write(Connection conn, List<DeadLetter> deadLetters) throws SQLException;
    }

    private BatchTransaction() {}

    /**
     * Runs {@code work}, then stores its dead letters and {@code nextOffsets} under {@code sink}, in one transaction.
     *
     * @param what names the rows in errors ({@code "stream events"})
     */
    public static BatchWriter.WriteResult write(
            DataSource dataSource, String sink, String what, Map<TopicPartition, Long> nextOffsets, Work work) {
        try (Connection conn = dataSource.getConnection()) {
            conn.setAutoCommit(false);
            try {
                List<DeadLetter> deadLetters = new ArrayList<>();
                long written = work.write(conn, deadLetters);
                DeadLetters.store(conn, deadLetters);
                SinkOffsets.store(conn, sink, nextOffsets);
                conn.commit();
                return new BatchWriter.WriteResult(written, deadLetters.size());
            } catch (SQLException e) {
                conn.rollback();
                if (PoisonedBatchException.isDataError(e)) {
                    throw new PoisonedBatchException(what + " refused by PostgreSQL: " + e.getMessage(), e);
                }
                throw new IllegalStateException(what + " not stored: " + e.getMessage(), e);
            } catch (RuntimeException e) {
                conn.rollback();
                throw new IllegalStateException(what + " not stored: " + e.getMessage(), e);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(what + " not stored: " + e.getMessage(), e);
        }
    }
}
