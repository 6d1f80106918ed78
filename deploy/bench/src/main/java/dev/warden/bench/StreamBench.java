package dev.warden.bench;

import dev.warden.api.config.WardenConfig;
import dev.warden.embedded.EmbeddedKafka;
import dev.warden.launcher.WardenPlatform;
import dev.warden.testing.SharedInfra;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The {@code audit} stream events' price and speed, on one instance and on two (run by deploy/bench/stream.sh,
 * never by the test suite). Instance A runs every role, instance B (when there are two) the API only, on one
 * in-process broker and one PostgreSQL. For each fleet size, in the same run:
 * <ol>
 *   <li>throughput: {@code workers} keep-alive connections send {@code POST /authorize} as fast as they can,
 *       split across the instances, for 15 s after 30 s of warm-up ({@code -Dbench.measure-ms},
 *       {@code -Dbench.warmup-ms}), with the {@code audit} events on and with them off
 *       ({@code warden.events.mirror-audit}); the ratio is the events' cost;</li>
 *   <li>SSE latency (events on): decisions paced at {@code rate} per second, each for its own resource; an
 *       administrator's SSE subscriber on every instance (after the throughput phase, so the JIT is warm) ({@code types=audit}); for every decision and every
 *       subscriber, the time from the decision's answer to its {@code audit} event's arrival.</li>
 * </ol>
 * Arguments: {@code <jdbc-url> <rate> <seconds> <workers>}; {@code -Dbench.repeats=N} repeats each off/on pair
 * N times (each on freshly started instances; every other pair with the events on first) and reports the median
 * ratio, as one pair on a shared 2-core machine swings by ±20%; {@code -Dbench.mirror-commit-ms} sets
 * {@code warden.streams.mirror-commit-interval-ms}. Beside throughput, each run reports the CPU time per decision
 * ({@link CpuMeter}: this JVM and PostgreSQL; its ratio off / on is the events' cost on a machine where CPU is the
 * limit), the same by thread group ({@link ThreadCpu}: where the difference lies) and the broker's requests per
 * 1,000 decisions by type ({@link BrokerRequests}).
 *
 * <p>{@code -Dbench.interleaved=N} measures the throughput another way, steadier on a machine whose speed drifts:
 * both fleets (events on, events off) run at once and the load moves between them in N windows of
 * {@code -Dbench.window-ms} (5 s) each ({@link InterleavedLoad}); the SSE latency is then measured on the fleet with
 * the events on, once the other is stopped. With {@code -Dbench.warm-up-set=true} a first set of one instance runs
 * and is not reported: the first set in a JVM measures lowest. {@code -Dbench.same=true} runs the same sets with
 * the events off in both fleets (an A/A test): its ratios are the method's own spread on this machine, with no cost
 * to find, and say how far a single set can stray from the events' true cost.
 */
public final class StreamBench {
    private static final String MARK = "\"resource\":\"mcp:fleet:";
    private static final int SENDERS = 8;
    private static final long WARMUP_MS = Long.getLong("bench.warmup-ms", 30_000);
    private static final long MEASURE_MS = Long.getLong("bench.measure-ms", 15_000);
    private static final boolean SAME = Boolean.getBoolean("bench.same");

    private StreamBench() {}

    public static void main(String[] args) throws Exception {
        String jdbcUrl = args[0];
        int rate = Integer.parseInt(args[1]);
        int seconds = Integer.parseInt(args[2]);
        int workers = Integer.parseInt(args[3]);
        Path kafkaDir = SharedInfra.worldTraversableTempDir();
        List<String> lines = new ArrayList<>();
        try (EmbeddedKafka kafka = EmbeddedKafka.start(kafkaDir)) {
            String only = System.getProperty("bench.mirror", "both");
            int repeats = Integer.getInteger("bench.repeats", 1);
            int windows = Integer.getInteger("bench.interleaved", 0);
            if (windows > 0 && Boolean.getBoolean("bench.warm-up-set")) {
                // Not reported: the first set in the JVM measures lower than the rest (the JIT still at work).
                interleaved(kafka.bootstrap(), jdbcUrl, 1, workers, 0, seconds, windows, new ArrayList<>());
            }
            for (String fleet : System.getProperty("bench.fleets", "1,2").split(",")) {
                int instances = Integer.parseInt(fleet.trim());
                if (windows > 0) {
                    interleaved(kafka.bootstrap(), jdbcUrl, instances, workers, rate, seconds, windows, lines);
                    continue;
                }
                List<Double> ratios = new ArrayList<>();
                List<Double> cpuRatios = new ArrayList<>();
                for (int r = 0; r < repeats; r++) {
                    // The latency phase runs once per fleet size, in the first run with the events on.
                    int latencyRate = r == 0 ? rate : 0;
                    // Every other pair runs "on" first: the first run in the JVM (and on the broker) is the colder.
                    boolean onFirst = r % 2 == 1;
                    Load on = onFirst && !only.equals("off")
                            ? run(kafka.bootstrap(), jdbcUrl, instances, true, workers, latencyRate, seconds, lines)
                            : Load.NONE;
                    Load off = only.equals("on")
                            ? Load.NONE
                            : run(kafka.bootstrap(), jdbcUrl, instances, false, workers, latencyRate, seconds, lines);
                    if (!onFirst && !only.equals("off")) {
                        on = run(kafka.bootstrap(), jdbcUrl, instances, true, workers, latencyRate, seconds, lines);
                    }
                    ratios.add(on.perSecond() / (double) off.perSecond());
                    cpuRatios.add(off.cpuMicrosPerDecision() / on.cpuMicrosPerDecision());
                    lines.add(String.format(
                            Locale.ROOT,
                            "%d instance(s), run %d: decisions/s with audit events on"
                                    + " / off = %d / %d = %.3f; CPU per decision off / on = %.1f / %.1f µs = %.3f (JVM %.1f /"
                                    + " %.1f, PostgreSQL %.1f / %.1f)",
                            instances,
                            r + 1,
                            on.perSecond(),
                            off.perSecond(),
                            on.perSecond() / (double) off.perSecond(),
                            off.cpuMicrosPerDecision(),
                            on.cpuMicrosPerDecision(),
                            off.cpuMicrosPerDecision() / on.cpuMicrosPerDecision(),
                            off.jvmMicrosPerDecision(),
                            on.jvmMicrosPerDecision(),
                            off.postgresMicrosPerDecision(),
                            on.postgresMicrosPerDecision()));
                    lines.add(String.format(
                            Locale.ROOT,
                            "%d instance(s), run %d: broker requests per 1,000 decisions," + " off: %s; on: %s",
                            instances,
                            r + 1,
                            off.brokerRequests(),
                            on.brokerRequests()));
                    lines.add(String.format(
                            Locale.ROOT,
                            "%d instance(s), run %d: %s",
                            instances,
                            r + 1,
                            ThreadCpu.compare(off.threads(), off.decisions(), on.threads(), on.decisions(), 15)));
                }
                ratios.sort(null);
                cpuRatios.sort(null);
                lines.add(String.format(
                        Locale.ROOT,
                        "%d instance(s): median over %d runs: throughput on / off = %.3f,"
                                + " CPU per decision off / on = %.3f",
                        instances,
                        repeats,
                        ratios.get(ratios.size() / 2),
                        cpuRatios.get(cpuRatios.size() / 2)));
            }
        } finally {
            SharedInfra.deleteTree(kafkaDir);
        }
        System.out.println();
        System.out.println(BenchFleet.postgresSettings(jdbcUrl));
        lines.forEach(System.out::println);
    }

    /**
     * What one fleet did under full load (in one run, or in its windows of an {@link InterleavedLoad}): decisions per
     * second, the CPU time (this JVM, which also runs the broker and the load, and PostgreSQL) per decision, the
     * broker's requests per 1,000 decisions, and the decisions counted with their CPU time by thread group.
     */
    record Load(
            long perSecond,
            double jvmMicrosPerDecision,
            double postgresMicrosPerDecision,
            String brokerRequests,
            long decisions,
            Map<String, Long> threads) {
        static final Load NONE = new Load(1, 1, 0, "", 1, Map.of());

        double cpuMicrosPerDecision() {
            return jvmMicrosPerDecision + postgresMicrosPerDecision;
        }
    }

    /** One fleet: its throughput, and (events on) its SSE latency. */
    private static Load run(
            String bootstrap,
            String jdbcUrl,
            int instances,
            boolean mirror,
            int workers,
            int rate,
            int seconds,
            List<String> lines)
            throws Exception {
        try (Fleet fleet = Fleet.start(bootstrap, jdbcUrl, instances, mirror)) {
            Load load = throughput(fleet.bases(), fleet.agent(), workers);
            if (mirror && rate > 0) {
                lines.add(warmLatency(fleet.bases(), fleet.agent(), rate, seconds));
            }
            return load;
        }
    }

    /**
     * Both fleets at once, the events on in one and off in the other, the load moving between them
     * ({@link InterleavedLoad}); then, when {@code rate} > 0, the SSE latency on the fleet with the events on, the
     * other stopped.
     */
    private static void interleaved(
            String bootstrap,
            String jdbcUrl,
            int instances,
            int workers,
            int rate,
            int seconds,
            int windows,
            List<String> lines)
            throws Exception {
        // A/A (bench.same): the first fleet, too, with the events off.
        try (Fleet on = Fleet.start(bootstrap, jdbcUrl, instances, !SAME)) {
            long windowMs = Long.getLong("bench.window-ms", 5_000);
            int warmup = (int) Math.max(2, WARMUP_MS / windowMs);
            List<Load> r;
            // The fleet with the events off is stopped before the latency phase: it measures one deployment.
            try (Fleet off = Fleet.start(bootstrap, jdbcUrl, instances, false)) {
                r = InterleavedLoad.run(
                        new URI[][] {on.bases(), off.bases()},
                        new String[][] {on.agent(), off.agent()},
                        workers,
                        warmup,
                        windows,
                        windowMs,
                        1_000,
                        (client, agent) -> authorize(client, agent, "x"));
            }
            Load onLoad = r.get(0);
            Load offLoad = r.get(1);
            lines.add(String.format(
                    Locale.ROOT,
                    "%d instance(s), interleaved%s (%d windows of %d ms each, after %d"
                            + " of warm-up): decisions/s with audit events on / off = %d / %d = %.3f; CPU per decision off"
                            + " / on = %.1f / %.1f µs = %.3f (JVM %.1f / %.1f, PostgreSQL %.1f / %.1f)",
                    instances,
                    SAME ? ", A/A: the events off in both fleets, 'on' is the first" : "",
                    windows,
                    windowMs,
                    warmup,
                    onLoad.perSecond(),
                    offLoad.perSecond(),
                    onLoad.perSecond() / (double) offLoad.perSecond(),
                    offLoad.cpuMicrosPerDecision(),
                    onLoad.cpuMicrosPerDecision(),
                    offLoad.cpuMicrosPerDecision() / onLoad.cpuMicrosPerDecision(),
                    offLoad.jvmMicrosPerDecision(),
                    onLoad.jvmMicrosPerDecision(),
                    offLoad.postgresMicrosPerDecision(),
                    onLoad.postgresMicrosPerDecision()));
            lines.add(String.format(
                    Locale.ROOT,
                    "%d instance(s), interleaved: broker requests per 1,000 decisions," + " off: %s; on: %s",
                    instances,
                    offLoad.brokerRequests(),
                    onLoad.brokerRequests()));
            lines.add(String.format(
                    Locale.ROOT,
                    "%d instance(s), interleaved: %s",
                    instances,
                    ThreadCpu.compare(
                            offLoad.threads(), offLoad.decisions(), onLoad.threads(), onLoad.decisions(), 15)));
            if (rate > 0 && !SAME) {
                lines.add(warmLatency(on.bases(), on.agent(), rate, seconds));
            }
        }
    }

    /** A deployment of its own (schema, topics, Streams applications) on the shared broker and database. */
    private record Fleet(
            List<WardenPlatform> instances, URI[] bases, String[] agent, Path state, String jdbcUrl, String isolation)
            implements AutoCloseable {
        static Fleet start(String bootstrap, String jdbcUrl, int instances, boolean mirror) throws Exception {
            String isolation = "stream_" + Long.toHexString(System.nanoTime());
            Path state = Files.createTempDirectory("stream-bench");
            WardenConfig a = BenchFleet.instanceA(isolation, state, mirror, Long.getLong("bench.mirror-commit-ms", 20));
            List<WardenPlatform> fleet = new ArrayList<>();
            try {
                fleet.add(WardenPlatform.start(a, bootstrap, jdbcUrl, Clock.systemUTC()));
                if (instances == 2) {
                    fleet.add(WardenPlatform.start(
                            a.toBuilder()
                                    .roles("api")
                                    .instanceId(isolation + "-b")
                                    .build(),
                            bootstrap,
                            jdbcUrl,
                            Clock.systemUTC()));
                }
                URI[] bases = fleet.stream().map(WardenPlatform::baseUri).toArray(URI[]::new);
                return new Fleet(fleet, bases, BenchFleet.agent(bases[0]), state, jdbcUrl, isolation);
            } catch (Exception | Error e) {
                new Fleet(fleet, new URI[0], new String[0], state, jdbcUrl, isolation).close();
                throw e;
            }
        }

        @Override
        public void close() throws Exception {
            for (WardenPlatform p : instances.reversed()) {
                p.close();
            }
            SharedInfra.deleteTree(state);
            BenchFleet.dropSchema(jdbcUrl, isolation);
        }
    }

    private static Load throughput(URI[] bases, String[] agent, int workers) throws Exception {
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong decisions = new AtomicLong();
        AtomicLong failures = new AtomicLong();
        AtomicReference<String> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            URI target = bases[w % bases.length];
            threads.add(Thread.ofPlatform().daemon().start(() -> {
                try (KeepAliveClient client = new KeepAliveClient(target)) {
                    while (running.get()) {
                        authorize(client, agent, "x");
                        decisions.incrementAndGet();
                    }
                } catch (Exception e) {
                    failures.incrementAndGet();
                    failure.compareAndSet(null, e.toString());
                }
            }));
        }
        Thread.sleep(WARMUP_MS);
        long start = decisions.get();
        long startNanos = System.nanoTime();
        long startJvm = CpuMeter.jvm();
        long startPostgres = CpuMeter.postgres();
        Map<String, Long> startRequests = BrokerRequests.counts();
        ThreadCpu.Snapshot startThreads = ThreadCpu.snapshot();
        Thread.sleep(MEASURE_MS);
        Map<String, Long> threadNanos = ThreadCpu.between(startThreads, ThreadCpu.snapshot());
        long done = decisions.get() - start;
        double elapsed = (System.nanoTime() - startNanos) / 1e9;
        double jvm = (CpuMeter.jvm() - startJvm) / 1e3;
        double postgres = (CpuMeter.postgres() - startPostgres) / 1e3;
        String requests = BrokerRequests.perThousand(startRequests, BrokerRequests.counts(), done);
        running.set(false);
        for (Thread t : threads) {
            t.join(10_000);
        }
        if (failures.get() > 0) {
            throw new IllegalStateException(failures.get() + " load workers failed, the first: " + failure.get());
        }
        return new Load(
                Math.round(done / elapsed),
                jvm / Math.max(1, done),
                postgres / Math.max(1, done),
                requests,
                done,
                threadNanos);
    }

    /**
     * {@link #latency}, after a first pass of {@code bench.latency-warmup-s} (10 s) at the same rate that is not
     * reported: the throughput runs before it never deliver to an SSE subscriber, so without it the JIT compiles
     * the delivery path (decoding, filtering, writing each event) while it is being measured.
     */
    private static String warmLatency(URI[] bases, String[] agent, int rate, int seconds) throws Exception {
        int warmup = Integer.getInteger("bench.latency-warmup-s", 10);
        if (warmup > 0) {
            latency(bases, agent, rate, warmup);
        }
        return latency(bases, agent, rate, seconds);
    }

    /** Paced decisions; every subscriber's delay from each decision's answer to its event. */
    private static String latency(URI[] bases, String[] agent, int rate, int seconds) throws Exception {
        int total = rate * seconds;
        AtomicLongArray answered = new AtomicLongArray(total);
        List<AtomicLongArray> received = new ArrayList<>();
        List<Thread> readers = new ArrayList<>();
        List<KeepAliveClient> streams = new ArrayList<>();
        for (URI base : bases) {
            AtomicLongArray seen = new AtomicLongArray(total);
            received.add(seen);
            // A plain socket per subscriber, read on a thread of its own: the JDK's HttpClient hands each chunk
            // through its selector and executor threads, hops that on two busy cores cost the measured delay
            // several milliseconds each.
            KeepAliveClient stream = new KeepAliveClient(base);
            streams.add(stream);
            readers.add(Thread.ofPlatform().daemon().start(() -> {
                try {
                    stream.stream("/events/stream?types=audit", BenchFleet.ADMIN, line -> {
                        int at = line.indexOf(MARK);
                        int from = at + MARK.length();
                        int to = at < 0 ? -1 : line.indexOf('"', from);
                        if (line.startsWith("data:") && to > from && Character.isDigit(line.charAt(from))) {
                            int n = Integer.parseInt(line, from, to, 10);
                            if (n < total) {
                                seen.compareAndSet(n, 0, System.nanoTime());
                            }
                        }
                    });
                } catch (IOException e) {
                    // closed at the end of the pass
                }
            }));
        }
        Thread.sleep(1_000);
        // Senders: SENDERS keep-alive connections per instance, each taking the next due decision from its
        // instance's queue, so a slow answer delays no other decision's start.
        List<BlockingQueue<Integer>> queues = new ArrayList<>();
        List<Thread> senders = new ArrayList<>();
        AtomicReference<String> failure = new AtomicReference<>();
        for (URI base : bases) {
            BlockingQueue<Integer> queue = new LinkedBlockingQueue<>();
            queues.add(queue);
            for (int c = 0; c < SENDERS; c++) {
                senders.add(Thread.ofPlatform().daemon().start(() -> {
                    try (KeepAliveClient client = new KeepAliveClient(base)) {
                        for (int n = queue.take(); n >= 0; n = queue.take()) {
                            authorize(client, agent, Integer.toString(n));
                            answered.set(n, System.nanoTime());
                        }
                    } catch (Exception e) {
                        failure.compareAndSet(null, e.toString());
                    }
                }));
            }
        }
        long startJvm = CpuMeter.jvm();
        long startPostgres = CpuMeter.postgres();
        ThreadCpu.Snapshot startThreads = ThreadCpu.snapshot();
        Map<String, Long> startRequests = BrokerRequests.counts();
        List<Map<String, Double>> startFeeds = feedDelays(bases);
        LocalTime startedAt = LocalTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MILLIS);
        long start = System.nanoTime();
        long interval = 1_000_000_000L / rate;
        for (int i = 0; i < total; i++) {
            long wait = start + i * interval - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            queues.get(i % bases.length).add(i);
        }
        double sendSeconds = (System.nanoTime() - start) / 1e9;
        double sentPerSecond = total / sendSeconds;
        // What the machine spent while the decisions were paced: the latency is the scheduling of every hop.
        double jvmCores = (CpuMeter.jvm() - startJvm) / 1e9 / sendSeconds;
        double postgresCores = (CpuMeter.postgres() - startPostgres) / 1e9 / sendSeconds;
        Map<String, Long> threadNanos = ThreadCpu.between(startThreads, ThreadCpu.snapshot());
        String requests = BrokerRequests.perThousand(startRequests, BrokerRequests.counts(), total);
        for (BlockingQueue<Integer> queue : queues) {
            for (int c = 0; c < SENDERS; c++) {
                queue.add(-1);
            }
        }
        for (Thread t : senders) {
            t.join(30_000);
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a sender failed: " + failure.get());
        }
        Thread.sleep(5_000); // drain
        String feeds = feedDelayShares(startFeeds, feedDelays(bases));
        List<Double> delays = new ArrayList<>();
        // Deliveries over 100 ms by second of the pass (decision n is sent at n / rate s), to set beside the
        // PostgreSQL log (checkpoints) and a GC log.
        Map<Integer, Integer> slow = new TreeMap<>();
        long missing = 0;
        for (AtomicLongArray seen : received) {
            for (int n = 0; n < total; n++) {
                if (seen.get(n) == 0 || answered.get(n) == 0) {
                    missing++;
                } else {
                    double delay = Math.max(0, seen.get(n) - answered.get(n)) / 1e6;
                    delays.add(delay);
                    if (delay > 100) {
                        slow.merge(n / rate, 1, Integer::sum);
                    }
                }
            }
        }
        for (KeepAliveClient stream : streams) {
            stream.close(); // disconnects: a later pass must not pay for these subscribers too
        }
        for (Thread reader : readers) {
            reader.join(5_000);
        }
        double[] sorted =
                delays.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return String.format(
                        Locale.ROOT,
                        "%d instance(s): SSE audit event after the decision's answer at %.0f events/s"
                                + " for %d s, %d subscriber(s): p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms,"
                                + " %d of %d deliveries missing",
                        bases.length,
                        sentPerSecond,
                        seconds,
                        bases.length,
                        pct(sorted, 50),
                        pct(sorted, 90),
                        pct(sorted, 99),
                        sorted.length == 0 ? 0 : sorted[sorted.length - 1],
                        missing,
                        (long) total * bases.length)
                + "; " + feeds
                + String.format(
                        Locale.ROOT,
                        "; over 100 ms, by second of the pass begun %s: %s",
                        startedAt,
                        slow.isEmpty() ? "none" : slow)
                + String.format(
                        Locale.ROOT,
                        "; meanwhile cores busy: this JVM %.2f, PostgreSQL %.2f, of %d; broker"
                                + " requests per 1,000 decisions: %s; %s",
                        jvmCores,
                        postgresCores,
                        Runtime.getRuntime().availableProcessors(),
                        requests,
                        ThreadCpu.top(threadNanos, total, 12));
    }

    /**
     * Each instance's {@code warden_events_feed_delay_seconds} buckets (from an event's write to {@code warden.audit}
     * to the instance's feed reading it, before the SSE hub, the socket and the client): upper bound to count.
     */
    private static List<Map<String, Double>> feedDelays(URI[] bases) throws Exception {
        List<Map<String, Double>> out = new ArrayList<>();
        for (URI base : bases) {
            Map<String, Double> buckets = new TreeMap<>();
            String text = BenchFleet.send(HttpRequest.newBuilder(base.resolve("/observe/metrics")))
                    .body();
            for (String line : text.split("\n")) {
                if (line.startsWith("warden_events_feed_delay_seconds_bucket{")) {
                    int le = line.indexOf("le=\"") + 4;
                    buckets.merge(
                            line.substring(le, line.indexOf('"', le)),
                            Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)),
                            Double::sum);
                }
            }
            out.add(buckets);
        }
        return out;
    }

    /** The share of the events read by the feeds within 25, 50 and 100 ms, between two {@link #feedDelays}. */
    private static String feedDelayShares(List<Map<String, Double>> start, List<Map<String, Double>> end) {
        Map<String, Double> diff = new HashMap<>();
        for (int i = 0; i < end.size(); i++) {
            Map<String, Double> before = start.get(i);
            end.get(i).forEach((le, n) -> diff.merge(le, n - before.getOrDefault(le, 0.0), Double::sum));
        }
        double all = diff.getOrDefault("+Inf", 0.0);
        return String.format(
                Locale.ROOT,
                "read by the instances' feeds within 25 / 50 / 100 ms of the audit record:"
                        + " %.1f / %.1f / %.2f %% of %.0f",
                share(diff, "0.025", all),
                share(diff, "0.05", all),
                share(diff, "0.1", all),
                all);
    }

    private static double share(Map<String, Double> buckets, String le, double all) {
        return all == 0 ? 0 : 100 * buckets.getOrDefault(le, 0.0) / all;
    }

    private static double pct(double[] sorted, int p) {
        return sorted.length == 0
                ? 0
                : sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
    }

    private static void authorize(KeepAliveClient client, String[] agent, String resource) throws Exception {
        KeepAliveClient.Answer r = client.post(
                "/authorize",
                agent[1],
                "{\"agentId\":\"" + agent[0] + "\",\"action\":\"read\",\"resource\":\"mcp:fleet:" + resource + "\"}");
        if (r.status() != 200) {
            throw new IllegalStateException("authorize answered " + r.status() + ": " + r.body());
        }
    }
}
