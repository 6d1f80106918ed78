package dev.warden.embedded;

import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The servers {@code warden dev} starts in-process when no external ones are configured: a KRaft broker
 * under {@code <data-dir>/kafka} and PostgreSQL under {@code <data-dir>/postgres}, started in parallel.
 */
public final class DevInfrastructure implements AutoCloseable {
    private final Optional<EmbeddedKafka> kafka;
    private final Optional<EmbeddedPostgresServer> postgres;
    private final String kafkaBootstrap;
    private final String jdbcUrl;

    private DevInfrastructure(
            Optional<EmbeddedKafka> kafka,
            Optional<EmbeddedPostgresServer> postgres,
            String kafkaBootstrap,
            String jdbcUrl) {
        this.kafka = kafka;
        this.postgres = postgres;
        this.kafkaBootstrap = kafkaBootstrap;
        this.jdbcUrl = jdbcUrl;
    }

    /** Starts whichever of Kafka and PostgreSQL is not given externally. */
    public static DevInfrastructure start(Path dataDir, Optional<String> externalKafka, Optional<String> externalPg) {
        CompletableFuture<Optional<EmbeddedPostgresServer>> pg =
                CompletableFuture.supplyAsync(() -> externalPg.isPresent()
                        ? Optional.empty()
                        : Optional.of(EmbeddedPostgresServer.start(dataDir.resolve("postgres"))));
        CompletableFuture<Optional<EmbeddedKafka>> broker =
                CompletableFuture.supplyAsync(() -> externalKafka.isPresent()
                        ? Optional.empty()
                        : Optional.of(EmbeddedKafka.start(dataDir.resolve("kafka"))));
        try {
            Optional<EmbeddedPostgresServer> postgres = pg.join();
            Optional<EmbeddedKafka> kafka;
            try {
                kafka = broker.join();
            } catch (CompletionException e) {
                postgres.ifPresent(EmbeddedPostgresServer::close);
                throw e;
            }
            return new DevInfrastructure(
                    kafka,
                    postgres,
                    externalKafka.orElseGet(() -> kafka.orElseThrow().bootstrap()),
                    externalPg.orElseGet(() -> postgres.orElseThrow().jdbcUrl()));
        } catch (CompletionException e) {
            broker.thenAccept(k -> k.ifPresent(EmbeddedKafka::close));
            throw e.getCause() instanceof RuntimeException re ? re : e;
        }
    }

    public String kafkaBootstrap() {
        return kafkaBootstrap;
    }

    public String jdbcUrl() {
        return jdbcUrl;
    }

    @Override
    public void close() {
        kafka.ifPresent(EmbeddedKafka::close);
        postgres.ifPresent(EmbeddedPostgresServer::close);
    }
}
