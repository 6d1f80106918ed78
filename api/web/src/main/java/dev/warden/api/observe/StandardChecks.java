package dev.warden.api.observe;

import dev.warden.runtime.db.Database;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;

/** Health checks for the infrastructure every role depends on. */
public final class StandardChecks {
    private StandardChecks() {}

    /** Postgres reachable and Warden's migrations applied. */
    public static HealthCheck postgres(Database db) {
        return new Named("postgres", () -> {
            if (!db.isMigrated()) {
                return HealthCheck.Result.down("migrations not applied yet");
            }
            return db.withConnection(conn -> {
                try (PreparedStatement ps = conn.prepareStatement("SELECT 1");
                        ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return HealthCheck.Result.up("reachable, migrations applied");
                }
            });
        });
    }

    /** The Kafka cluster answers a metadata request. */
    public static HealthCheck kafka(Admin admin) {
        return new Named("kafka", () -> {
            try {
                int brokers = admin.describeCluster(new DescribeClusterOptions().timeoutMs(3_000))
                        .nodes()
                        .get(4, TimeUnit.SECONDS)
                        .size();
                return brokers > 0
                        ? HealthCheck.Result.up(brokers + " broker(s) reachable")
                        : HealthCheck.Result.down("no brokers");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return HealthCheck.Result.down("interrupted");
            } catch (Exception e) {
                return HealthCheck.Result.down("unreachable: " + e.getMessage());
            }
        });
    }

    private record Named(String name, Supplier<HealthCheck.Result> probe) implements HealthCheck {
        @Override
        public Result check() {
            return probe.get();
        }
    }
}
