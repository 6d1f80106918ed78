package dev.warden.runtime.consumer;

import java.sql.SQLException;

/**
 * The store refused the data of a batch (a value it cannot hold), not the act of storing: the same batch
 * would fail the same way forever. The {@link SinkWorker} answers it by splitting the batch until the
 * culprit is alone and dead-lettering it; every other failure is transient and retried as it is.
 */
public final class PoisonedBatchException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public PoisonedBatchException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * True when PostgreSQL refused the data itself: SQLSTATE classes 22 (data exception: a NUL in text or
     * {@code jsonb}, a number out of range, invalid text for a type), 23 (integrity constraint) and 54 (program
     * limit exceeded: a value too large). Connection, resource and serialization failures (08, 53, 57, 40) are
     * transient.
     */
    public static boolean isDataError(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                String state = sql.getSQLState();
                return state.startsWith("22") || state.startsWith("23") || state.startsWith("54");
            }
        }
        return false;
    }
}
