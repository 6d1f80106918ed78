package dev.warden.sinks;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A schema of its own in the shared test PostgreSQL holding the tables the sinks write, made by this module's
 * migrations ({@code db/migration} here: the audit log, sink offsets, the stream-event store, dead letters).
 * The API module's migrations (agents, users, ...) are not on this module's classpath, so they are not run.
 */
public final class SinkTables implements AutoCloseable {
    private final PGSimpleDataSource dataSource;
    private final String schema;

    private SinkTables(PGSimpleDataSource dataSource, String schema) {
        this.dataSource = dataSource;
        this.schema = schema;
    }

    /** Creates a fresh schema in the database at {@code jdbcUrl} and migrates it. */
    public static SinkTables create(String jdbcUrl) {
        String schema = "sinks_it_" + UUID.randomUUID().toString().replace("-", "");
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(jdbcUrl);
        ds.setCurrentSchema(schema);
        Flyway.configure()
                .dataSource(ds)
                .schemas(schema)
                .createSchemas(true)
                .locations("classpath:db/migration")
                .load()
                .migrate();
        return new SinkTables(ds, schema);
    }

    public DataSource dataSource() {
        return dataSource;
    }

    @Override
    public void close() throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP SCHEMA " + schema + " CASCADE");
        }
    }
}
