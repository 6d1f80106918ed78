package dev.warden.runtime.db;

import java.sql.Connection;

/**
 * Where a unit of work that spans several repositories runs: one transaction, committed when the work returns and
 * rolled back when it throws. Given to the code that needs it ({@link Database} is one), so that no repository
 * hands out the pool it was built on.
 */
public interface Transactions {
    /** Runs {@code work} in one transaction. */
    <T> T inTransaction(Database.SqlFunction<Connection, T> work);
}
