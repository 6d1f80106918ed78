package dev.warden.launcher;

import dev.warden.api.config.ConfigLoader;
import dev.warden.api.config.WardenConfig;
import io.helidon.logging.common.LogConfig;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

/**
 * The {@code warden} command.
 *
 * <pre>
 *   warden dev   [--port N] [--data-dir DIR] [--config FILE] [--kafka HOST:PORT] [--postgres JDBC_URL]
 *   warden serve [--roles api,quota,pipeline,sinks] [--port N] [--config FILE]
 *                [--kafka HOST:PORT] [--postgres JDBC_URL] [--redis URL]
 *   warden probe [URL]
 * </pre>
 *
 * {@code serve} runs the chosen roles against external servers; it is what the production image runs.
 * {@code dev} runs every role on an in-process broker and PostgreSQL; it is a {@link Dev} supplied by the
 * developer distribution ({@code deploy/dev}, what {@code ./warden} runs), which is not in the image. Ctrl-C
 * stops everything cleanly. {@code probe} is the image's health check (a {@link Probe}).
 */
public final class Main {
    private static final String USAGE = """
            usage:
              warden dev   [--port N] [--data-dir DIR] [--config FILE] [--kafka HOST:PORT] [--postgres JDBC_URL]
              warden serve [--roles api,quota,pipeline,sinks] [--port N] [--config FILE]
                           [--kafka HOST:PORT] [--postgres JDBC_URL] [--redis URL]
              warden probe [URL]   exit 0 if URL (default: http://127.0.0.1:8080/observe/health) answers 200
              warden help
            Configuration keys and WARDEN_* environment variables are listed in README.md.""";

    /** The {@code dev} command, given its command-line options; returns the exit status. */
    @FunctionalInterface
    public interface Dev {
        int run(Map<String, String> options, PrintStream out);
    }

    private Main() {}

    /** The production entry point: {@code serve} (the image's command) and {@code help}. */
    public static void main(String[] args) {
        launch(args, Optional.empty());
    }

    /** Runs the command line, with {@code dev} when the distribution has one, and exits with its status. */
    public static void launch(String[] args, Optional<Dev> dev) {
        LogConfig.configureRuntime();
        try {
            System.exit(run(args, System.out, dev));
        } catch (IllegalArgumentException | IllegalStateException e) {
            System.err.println("warden: " + e.getMessage());
            System.exit(2);
        }
    }

    static int run(String[] args, PrintStream out, Optional<Dev> dev) {
        if (args.length == 0 || List.of("help", "--help", "-h").contains(args[0])) {
            out.println(USAGE);
            return args.length == 0 ? 2 : 0;
        }
        if (args[0].equals("probe")) {
            if (args.length > 2) {
                throw new IllegalArgumentException("probe takes at most one URL\n" + USAGE);
            }
            return args.length == 2 ? Probe.run(args[1], out) : Probe.run(out);
        }
        Map<String, String> options = options(List.of(args).subList(1, args.length));
        return switch (args[0]) {
            case "dev" ->
                dev.orElseThrow(
                                () -> new IllegalArgumentException(
                                        "'dev' is not part of this build: the "
                                                + "production image runs 'serve'; 'warden dev' is the developer distribution that ./warden runs"))
                        .run(options, out);
            case "serve" -> serve(options, out);
            default -> throw new IllegalArgumentException("unknown command '" + args[0] + "'\n" + USAGE);
        };
    }

    private static int serve(Map<String, String> options, PrintStream out) {
        WardenConfig config = config(options);
        String kafka = config.kafka()
                .bootstrap()
                .orElseThrow(() -> new IllegalArgumentException(
                        "serve needs Kafka: set WARDEN_KAFKA_BOOTSTRAP, warden.kafka.bootstrap or --kafka"));
        String pg = config.postgres()
                .url()
                .orElseThrow(() -> new IllegalArgumentException(
                        "serve needs PostgreSQL: set WARDEN_PG_URL, warden.pg.url or --postgres"));
        WardenPlatform platform = WardenPlatform.start(config, kafka, pg, Clock.systemUTC());
        out.printf("Warden serving roles %s on %s%n", config.roles(), platform.baseUri());
        if (!config.bootstrapEnabled()) {
            out.printf("The bootstrap admin token is turned off (warden.bootstrap.enabled=false)%n");
        } else if (config.bootstrapToken().isEmpty()) {
            out.printf("No WARDEN_BOOTSTRAP_TOKEN was set; this process's admin token is: %s%n", platform.adminToken());
        }
        platform.setupToken()
                .ifPresent(token -> out.printf(
                        "First-run setup token (one use, 24 hours; POST /auth/setup creates the first administrator): "
                                + "%s%n",
                        token));
        awaitShutdown(platform, () -> {});
        return 0;
    }

    /** The configuration (defaults, the file, WARDEN_* variables; see ConfigLoader) with the command-line options on top. */
    public static WardenConfig config(Map<String, String> options) {
        WardenConfig.Builder b =
                WardenConfig.from(ConfigLoader.load(
                                Optional.ofNullable(options.get("config")).map(Path::of)))
                        .toBuilder();
        Optional.ofNullable(options.get("port")).map(Main::port).ifPresent(b::port);
        Optional.ofNullable(options.get("roles")).ifPresent(b::roles);
        Optional.ofNullable(options.get("kafka")).ifPresent(b::kafkaBootstrap);
        Optional.ofNullable(options.get("postgres")).ifPresent(b::pgUrl);
        Optional.ofNullable(options.get("redis")).ifPresent(b::redisUrl);
        return b.build();
    }

    private static int port(String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--port must be a number, got '" + value + "'");
        }
    }

    private static Map<String, String> options(List<String> args) {
        List<String> known = List.of("port", "data-dir", "config", "roles", "kafka", "postgres", "redis");
        Map<String, String> options = new HashMap<>();
        List<String> rest = new ArrayList<>(args);
        while (!rest.isEmpty()) {
            String arg = rest.removeFirst();
            String name;
            String value;
            if (arg.startsWith("--") && arg.contains("=")) {
                name = arg.substring(2, arg.indexOf('='));
                value = arg.substring(arg.indexOf('=') + 1);
            } else if (arg.startsWith("--") && !rest.isEmpty()) {
                name = arg.substring(2);
                value = rest.removeFirst();
            } else {
                throw new IllegalArgumentException("unexpected argument '" + arg + "'\n" + USAGE);
            }
            if (!known.contains(name)) {
                throw new IllegalArgumentException("unknown option '--" + name + "'\n" + USAGE);
            }
            options.put(name, value);
        }
        return options;
    }

    /** A JDBC URL fit to print: its password hidden. */
    public static String redact(String jdbcUrl) {
        return jdbcUrl.replaceAll("password=[^&]*", "password=****");
    }

    /** Blocks until the JVM is asked to stop, then closes the platform and then what it ran on. */
    public static void awaitShutdown(WardenPlatform platform, AutoCloseable infra) {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            System.out.println("warden: stopping...");
                            platform.close();
                            try {
                                infra.close();
                            } catch (Exception e) {
                                System.err.println("warden: error while stopping: " + e.getMessage());
                            }
                            stopped.countDown();
                        },
                        "warden-shutdown"));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
