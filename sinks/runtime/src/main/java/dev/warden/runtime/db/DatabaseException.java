package dev.warden.runtime.db;

import java.sql.SQLException;

/** A database failure (connection, constraint the code did not expect, ...). Unchecked. */
public class DatabaseException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public DatabaseException(SQLException cause) {
        super(cause.getMessage(), cause);
    }

    /** The SQLSTATE of the cause, e.g. {@code 23505} for a unique violation. */
    public String sqlState() {
        return ((SQLException) getCause()).getSQLState();
    }
}
