package dev.warden.dev;

import dev.warden.api.config.WardenConfig;
import dev.warden.api.oauth.OAuthConfig;
import dev.warden.api.users.mail.MailConfig;
import dev.warden.cli.WardenCli;
import dev.warden.embedded.DevInfrastructure;
import dev.warden.embedded.DevMailServer;
import dev.warden.launcher.Main;
import dev.warden.launcher.WardenPlatform;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The developer distribution's {@code warden} command, what {@code ./warden} runs: the production command
 * line plus {@code dev}, which runs every role in this JVM on an in-process KRaft broker and PostgreSQL whose
 * state lives in the data directory (default {@code .warden-data}) and survives restarts.
 */
public final class DevMain {
    private DevMain() {}

    /**
     * The CLI's commands ({@code warden login}, {@code warden agents}, ...: docs/cli.md) with the server's beside
     * them, which take their arguments as they always did.
     */
    public static void main(String[] args) {
        Map<String, WardenCli.ServerCommand> server = new LinkedHashMap<>();
        server.put(
                "dev",
                new WardenCli.ServerCommand(
                        "Run every role in this process on an in-process broker, PostgreSQL and mail server "
                                + "(--port N, --data-dir DIR, --config FILE).",
                        DevMain::launch));
        server.put(
                "serve",
                new WardenCli.ServerCommand(
                        "Run roles against external Kafka, PostgreSQL and Redis (--roles, --port, --config, "
                                + "--kafka, --postgres, --redis).",
                        DevMain::launch));
        server.put(
                "probe",
                new WardenCli.ServerCommand(
                        "Exit 0 if URL (default: the local health endpoint) answers 200.", DevMain::launch));
        System.exit(WardenCli.run(args, server));
    }

    private static int launch(String[] args) {
        Main.launch(args, Optional.of(DevMain::dev));
        return 0; // launch exits the process itself
    }

    /**
     * The OAuth signing keys of a dev data directory are sealed with a key kept beside them
     * ({@code oauth-key-encryption-key}, owner-only), made on first start, unless one is configured.
     */
    static OAuthConfig withKeyEncryptionKey(OAuthConfig oauth, Path dataDir) {
        Path file = dataDir.resolve("oauth-key-encryption-key");
        try {
            if (!Files.exists(file)) {
                Files.createDirectories(dataDir);
                byte[] key = new byte[OAuthConfig.KEY_BYTES];
                new SecureRandom().nextBytes(key);
                Files.writeString(file, Base64.getEncoder().encodeToString(key));
                try {
                    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
                } catch (UnsupportedOperationException e) {
                    // not a POSIX file system: the data directory's own permissions apply
                }
            }
            return oauth.withKeyEncryptionKey(Files.readString(file).strip());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot keep the OAuth key-encryption key in " + file, e);
        }
    }

    static int dev(Map<String, String> options, PrintStream out) {
        Path dataDir = Path.of(options.getOrDefault(
                "data-dir",
                Optional.ofNullable(System.getenv("WARDEN_DATA_DIR")).orElse(".warden-data")));
        WardenConfig config = Main.config(options).toBuilder()
                .streamsStateDir(dataDir.resolve("streams").toAbsolutePath().toString())
                .build();
        if (config.streams().backgroundFetchWaitMs() == 0) {
            // An idle dev platform should sleep: the consumers nobody waits on ask the broker once a second, not
            // ten times (README.md, the configuration table: warden.streams.background-fetch-wait-ms).
            config = config.toBuilder()
                    .backgroundFetchWaitMs(WardenConfig.Streams.DEV_BACKGROUND_FETCH_WAIT_MS)
                    .build();
        }
        if (config.streams().groupRetryBackoffMs() == 0) {
            // Each consumer in a group has a heartbeat thread that wakes every retry.backoff.ms to see whether a
            // heartbeat is due (one is, every 3 s): ten times a second at Kafka's 100 ms, once at 1 s. A failed
            // request is retried after 1 s too, which one broker on this machine rarely asks for (README.md, the
            // configuration table: warden.streams.group-retry-backoff-ms).
            config = config.toBuilder()
                    .groupRetryBackoffMs(WardenConfig.Streams.DEV_GROUP_RETRY_BACKOFF_MS)
                    .build();
        }
        if (config.streams().groupHeartbeatIntervalMs() == 0) {
            // Each of the six group members heartbeats every 3 s by Kafka's default: two requests a second to the
            // broker and its group coordinator. One instance in a group learns of no rebalance it did not start
            // (README.md, the configuration table: warden.streams.group-heartbeat-interval-ms).
            config = config.toBuilder()
                    .groupHeartbeatIntervalMs(WardenConfig.Streams.DEV_GROUP_HEARTBEAT_INTERVAL_MS)
                    .build();
        }
        if (config.oauth().keyEncryptionKey().isEmpty()) {
            config = config.toBuilder()
                    .oauth(withKeyEncryptionKey(config.oauth(), dataDir))
                    .build();
        }
        long started = System.nanoTime();
        // The development mail server starts beside the broker and PostgreSQL, not before them.
        boolean mailConfigured = config.mail().enabled();
        CompletableFuture<Optional<DevMailServer>> mailServer = CompletableFuture.supplyAsync(
                () -> mailConfigured ? Optional.empty() : Optional.of(DevMailServer.start(out)));
        DevInfrastructure infra;
        try {
            infra = DevInfrastructure.start(
                    dataDir, config.kafka().bootstrap(), config.postgres().url());
        } catch (RuntimeException e) {
            mailServer.thenAccept(m -> m.ifPresent(DevMailServer::close));
            throw e;
        }
        Optional<DevMailServer> devMail;
        try {
            devMail = mailServer.join();
        } catch (CompletionException e) {
            infra.close();
            throw e.getCause() instanceof RuntimeException re ? re : e;
        }
        if (devMail.isPresent()) {
            config = config.toBuilder()
                    .mail(MailConfig.plain(devMail.get().host(), devMail.get().port(), "warden@localhost"))
                    .build();
        }
        WardenPlatform platform;
        try {
            platform = WardenPlatform.start(config, infra.kafkaBootstrap(), infra.jdbcUrl(), Clock.systemUTC());
            if (!platform.awaitHealthy(Duration.ofSeconds(90))) {
                System.err.println("warden: not every component is healthy yet; see GET /observe/health");
            }
        } catch (RuntimeException e) {
            infra.close();
            devMail.ifPresent(DevMailServer::close);
            throw e;
        }
        out.printf(
                """

                Warden is ready in %.1f s (roles: %s)
                  URL:             %s
                  Admin token:     %s%s
                  Data directory:  %s
                  Kafka:           %s
                  PostgreSQL:      %s
                  Mail:            %s
                Try: curl -s -H "Authorization: Bearer $TOKEN" %s/agents
                Press Ctrl-C to stop.
                %n""",
                (System.nanoTime() - started) / 1e9,
                config.roles(),
                platform.baseUri(),
                config.bootstrapEnabled() ? platform.adminToken() : "(turned off: warden.bootstrap.enabled=false)",
                platform.setupToken()
                        .map(t -> "\n  Setup token:     " + t
                                + " (first run: POST /auth/setup creates the first administrator)")
                        .orElse(""),
                dataDir.toAbsolutePath().normalize(),
                infra.kafkaBootstrap(),
                Main.redact(infra.jdbcUrl()),
                devMail.map(m -> "smtp://" + m.host() + ":" + m.port() + " (in-process; every message is printed here)")
                        .orElse(config.mail().host().orElseThrow() + ":"
                                + config.mail().port()),
                platform.baseUri());
        Main.awaitShutdown(platform, () -> {
            infra.close();
            devMail.ifPresent(DevMailServer::close);
        });
        return 0;
    }
}
