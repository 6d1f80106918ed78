package dev.warden.testing;

import dev.warden.embedded.EmbeddedPostgresServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The servers every integration test in a JVM shares: one in-process KRaft broker and one PostgreSQL
 * (the machine's, from {@code WARDEN_TEST_PG_URL}, else an embedded one). Tests isolate themselves by
 * topic prefix and database schema, never by restarting servers. Closed when the JUnit run ends.
 */
public final class SharedInfra implements ExtensionContext.Store.CloseableResource {
    private final KafkaClusterTestKit kafka;
    private final Optional<EmbeddedPostgresServer> embeddedPg;
    private final Optional<Path> tempDir;
    private final String jdbcUrl;

    private SharedInfra(
            KafkaClusterTestKit kafka,
            Optional<EmbeddedPostgresServer> embeddedPg,
            Optional<Path> tempDir,
            String jdbcUrl) {
        this.kafka = kafka;
        this.embeddedPg = embeddedPg;
        this.tempDir = tempDir;
        this.jdbcUrl = jdbcUrl;
    }

    /** The instance of this JUnit run, started on first use. */
    public static SharedInfra get(ExtensionContext context) {
        return context.getRoot()
                .getStore(ExtensionContext.Namespace.GLOBAL)
                .getOrComputeIfAbsent(SharedInfra.class, k -> start(), SharedInfra.class);
    }

    private static SharedInfra start() {
        try {
            KafkaClusterTestKit kafka = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
                            .setCombined(true)
                            .setNumBrokerNodes(1)
                            .setNumControllerNodes(1)
                            .build())
                    .setConfigProp("auto.create.topics.enable", "false")
                    .setConfigProp("group.initial.rebalance.delay.ms", "0")
                    .setConfigProp("offsets.topic.replication.factor", "1")
                    .setConfigProp("offsets.topic.num.partitions", "3")
                    .setConfigProp("transaction.state.log.replication.factor", "1")
                    .setConfigProp("transaction.state.log.min.isr", "1")
                    .setConfigProp("transaction.state.log.num.partitions", "3")
                    .build();
            kafka.format();
            kafka.startup();
            kafka.waitForReadyBrokers();
            String configured = System.getenv("WARDEN_TEST_PG_URL");
            if (configured != null && !configured.isBlank()) {
                return new SharedInfra(kafka, Optional.empty(), Optional.empty(), configured);
            }
            Path dir = worldTraversableTempDir();
            EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("postgres"));
            return new SharedInfra(kafka, Optional.of(pg), Optional.of(dir), pg.jdbcUrl());
        } catch (Exception e) {
            throw new IllegalStateException("could not start the shared test servers: " + e.getMessage(), e);
        }
    }

    /** A temp dir the embedded PostgreSQL can reach when tests run as root (it then runs as nobody). */
    public static Path worldTraversableTempDir() {
        try {
            return Files.createTempDirectory(
                    "warden-it-", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Deletes a directory tree, best effort. */
    public static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Kafka {@code host:port}. */
    public String kafkaBootstrap() {
        return kafka.bootstrapServers();
    }

    /** JDBC URL of the shared PostgreSQL. */
    public String jdbcUrl() {
        return jdbcUrl;
    }

    @Override
    public void close() throws Exception {
        kafka.close();
        embeddedPg.ifPresent(EmbeddedPostgresServer::close);
        tempDir.ifPresent(SharedInfra::deleteTree);
    }
}
