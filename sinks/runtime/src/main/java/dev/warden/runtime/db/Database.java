package dev.warden.runtime.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

/**
 * The Postgres connection pool (HikariCP) and its schema (Flyway). {@link #migrate()} must run before any
 * repository is used; migrations are append-only ({@code db/migration/V*__*.sql}).
 */
public final class Database implements Transactions, AutoCloseable {
    private final HikariDataSource dataSource;
    private final String schema;
    private final AtomicBoolean migrated = new AtomicBoolean();

    private Database(HikariDataSource dataSource, String schema) {
        this.dataSource = dataSource;
        this.schema = schema;
    }

    /**
     * How to use the database: credentials (when not in the URL), pool size, schema ({@code public} when empty).
     * The configuration's {@code warden.pg} block makes one; the pool knows nothing of the rest of it.
     */
    public record PoolSettings(
            Optional<String> user, Optional<String> password, int poolSize, Optional<String> schema) {
        @Override
        public String toString() {
            return "PoolSettings[user=" + user.orElse("") + ", password=" + (password.isPresent() ? "****" : "")
                    + ", poolSize=" + poolSize + ", schema=" + schema.orElse("") + "]";
        }
    }

    /** A pool for {@code postgres} connecting to {@code jdbcUrl}. Does not touch the schema. */
    public static Database connect(String jdbcUrl, PoolSettings postgres) {
        return connect(jdbcUrl, postgres, Optional.empty());
    }

    /**
     * As {@link #connect(String, PoolSettings)}, with the pool's meters ({@code hikaricp_connections_*}) in
     * {@code meters} when given.
     */
    public static Database connect(String jdbcUrl, PoolSettings postgres, Optional<MeterRegistry> meters) {
        HikariConfig hikari = new HikariConfig();
        meters.ifPresent(hikari::setMetricRegistry);
        hikari.setJdbcUrl(jdbcUrl);
        postgres.user().ifPresent(hikari::setUsername);
        postgres.password().ifPresent(hikari::setPassword);
        hikari.setMaximumPoolSize(postgres.poolSize());
        hikari.setMinimumIdle(Math.min(2, postgres.poolSize()));
        hikari.setPoolName("warden-pg");
        hikari.setConnectionTimeout(10_000);
        hikari.setInitializationFailTimeout(30_000);
        String schema = postgres.schema().orElse("public");
        hikari.setSchema(schema);
        return new Database(new HikariDataSource(hikari), schema);
    }

    /** Applies pending migrations (creating the schema if needed). Idempotent; safe with several instances. */
    public void migrate() {
        Flyway.configure()
                .dataSource(dataSource)
                .schemas(schema)
                .createSchemas(true)
                .locations("classpath:db/migration")
                .load()
                .migrate();
        migrated.set(true);
    }

    /** True once {@link #migrate()} has completed in this process. */
    public boolean isMigrated() {
        return migrated.get();
    }

    /** The pool. */
    public DataSource dataSource() {
        return dataSource;
    }

    /** Runs {@code work} in one transaction: committed when it returns, rolled back when it throws. */
    @Override
    public <T> T inTransaction(SqlFunction<Connection, T> work) {
        try (Connection conn = dataSource.getConnection()) {
            conn.setAutoCommit(false);
            try {
                T result = work.apply(conn);
                conn.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                conn.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new DatabaseException(e);
        }
    }

    /** Runs {@code work} on a pooled connection in auto-commit mode. */
    public <T> T withConnection(SqlFunction<Connection, T> work) {
        try (Connection conn = dataSource.getConnection()) {
            return work.apply(conn);
        } catch (SQLException e) {
            throw new DatabaseException(e);
        }
    }

    @Override
    public void close() {
        dataSource.close();
    }

    /** A function over JDBC that may throw {@link SQLException}. */
    @FunctionalInterface
    public interface SqlFunction<I, O> {
        O apply(I input) throws SQLException;
    }
}
