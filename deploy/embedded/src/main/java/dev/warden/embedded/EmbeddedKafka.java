package dev.warden.embedded;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;

/**
 * A single-node Kafka broker in KRaft mode (combined broker and controller) running inside this JVM, for
 * {@code warden dev}. Its log lives under a directory that survives restarts: the storage is formatted
 * once (cluster id kept in {@code cluster.id}) and reused afterwards. Listens on free loopback ports.
 */
public final class EmbeddedKafka implements AutoCloseable {
    /** The log cleaner's dedupe map, on the heap for the broker's life (Kafka's default is 128 MiB). */
    static final long DEDUPE_BUFFER_BYTES = 8L * 1024 * 1024;

    private final KafkaRaftServer server;
    private final int brokerPort;
    private final int controllerPort;

    private EmbeddedKafka(KafkaRaftServer server, int brokerPort, int controllerPort) {
        this.server = server;
        this.brokerPort = brokerPort;
        this.controllerPort = controllerPort;
    }

    /** Formats {@code dir} if needed and starts the broker on free ports. */
    public static EmbeddedKafka start(Path dir) {
        return start(dir, FreePorts.next(), FreePorts.next());
    }

    /** Formats {@code dir} if needed and starts the broker on the given ports (e.g. to restart it in place). */
    public static EmbeddedKafka start(Path dir, int brokerPort, int controllerPort) {
        try {
            Files.createDirectories(dir);
            Path logs = dir.resolve("logs");
            Map<String, Object> props = config(logs, brokerPort, controllerPort);
            format(dir, logs);
            KafkaRaftServer server = new KafkaRaftServer(new KafkaConfig(props, false), Time.SYSTEM);
            server.startup();
            return new EmbeddedKafka(server, brokerPort, controllerPort);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Exception e) {
            throw new IllegalStateException("could not start the embedded Kafka broker: " + e.getMessage(), e);
        }
    }

    private static Map<String, Object> config(Path logs, int brokerPort, int controllerPort) {
        Map<String, Object> p = new HashMap<>();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("controller.listener.names", "CONTROLLER");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("log.dirs", logs.toAbsolutePath().toString());
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "5");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("transaction.state.log.num.partitions", "5");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("auto.create.topics.enable", "false");
        p.put("num.partitions", "1");
        // The controller appends a no-op record to the metadata log every 500 ms by default (KIP-835: it lets a
        // cluster's brokers see that the quorum is alive). One node in one process has no one to tell; every 10 s
        // keeps the metric moving without the controller, the raft thread and the broker's metadata loader waking
        // twice a second in an idle `warden dev`.
        p.put("metadata.max.idle.interval.ms", "10000");
        // The log cleaner's dedupe map is one on-heap array of this size, allocated at start and held for the
        // broker's life: 128 MiB by default, sized for a broker of its own compacting large logs. In process it
        // was two thirds of an idle `warden dev`'s live heap, and with -Xmx1g it kept G1 above its threshold for
        // concurrent marking after every young collection (D199). 8 MiB still maps about 300,000 keys per
        // cleaning pass (24 bytes a key); a log with more keys is cleaned in more passes.
        p.put("log.cleaner.dedupe.buffer.size", String.valueOf(DEDUPE_BUFFER_BYTES));
        if (Runtime.getRuntime().availableProcessors() <= 4) {
            // The defaults (3 network and 8 request threads) suit a broker with a machine of its own. In process
            // on a small machine, fewer threads mean fewer context switches on every produce and fetch: on 2
            // cores, 2 + 2 gave 17% more decisions/s at 16 connections than the defaults, and 1 + 1 less.
            p.put("num.network.threads", "2");
            p.put("num.io.threads", "2");
        }
        return p;
    }

    private static void format(Path dir, Path logs) throws Exception {
        Path idFile = dir.resolve("cluster.id");
        String clusterId;
        if (Files.exists(idFile)) {
            clusterId = Files.readString(idFile).strip();
        } else {
            clusterId = Uuid.randomUuid().toString();
            Files.writeString(idFile, clusterId);
        }
        new Formatter()
                .setPrintStream(new PrintStream(PrintStream.nullOutputStream()))
                .setNodeId(1)
                .setClusterId(clusterId)
                .setDirectories(List.of(logs.toAbsolutePath().toString()))
                .setMetadataLogDirectory(logs.toAbsolutePath().toString())
                .setControllerListenerName("CONTROLLER")
                .setIgnoreFormatted(true)
                .run();
    }

    /** {@code host:port} for clients. */
    public String bootstrap() {
        return "127.0.0.1:" + brokerPort;
    }

    /** The client listener's port. */
    public int brokerPort() {
        return brokerPort;
    }

    /** The controller listener's port. */
    public int controllerPort() {
        return controllerPort;
    }

    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
    }
}
