package dev.warden.bench;

import dev.warden.api.config.WardenConfig;
import dev.warden.embedded.EmbeddedKafka;
import dev.warden.launcher.WardenPlatform;
import dev.warden.testing.SharedInfra;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Revocation visibility under decision load, across two API instances and on one (run by deploy/bench/fleet.sh,
 * never by the test suite). Instance A runs every role, instance B the API only, on one broker and one database.
 * While {@code load} workers send {@code POST /authorize} to both, each round creates an agent on A, has B allow it
 * (so B caches it), waits a random 0-1 s, revokes it on A and then asks B every millisecond until B stops
 * allowing it: the delay from A's 204 to B's first refusal, and how many allowed answers B gave after the 204;
 * and when the {@code agent.revoked} event reached an SSE subscriber on B. With one instance, B is A itself: the
 * same figures for the instance that answered the revocation (its baseline).
 * Run with the {@code audit} stream events on (the default) and off, for each fleet size of {@code -Dbench.fleets}
 * (default {@code 2,1}), in the same process. Arguments: {@code <jdbc-url> <rounds> <load-workers>}.
 */
public final class FleetBench {

    private FleetBench() {
    }

    public static void main(String[] args) throws Exception {
        String jdbcUrl = args[0];
        int rounds = Integer.parseInt(args[1]);
        int workers = Integer.parseInt(args[2]);
        Path kafkaDir = SharedInfra.worldTraversableTempDir();
        try (EmbeddedKafka kafka = EmbeddedKafka.start(kafkaDir)) {
            List<String> lines = new ArrayList<>();
            for (String fleet : System.getProperty("bench.fleets", "2,1").split(",")) {
                for (boolean mirror : new boolean[] {true, false}) {
                    lines.add(run(kafka.bootstrap(), jdbcUrl, Integer.parseInt(fleet.trim()), rounds, workers, mirror));
                }
            }
            System.out.println();
            System.out.println("revocation visibility on instance B (with one instance: on A) after DELETE /agents/{id}"
                    + " answered 204 on A");
            System.out.printf("%-9s %-13s %7s %9s %9s %9s %9s %14s %12s %9s %9s %9s%n", "instances", "audit events",
                    "rounds", "p50 ms", "p90 ms", "p99 ms", "max ms", "allowed after", "decisions/s", "SSE p50",
                    "SSE p90", "SSE max");
            lines.forEach(System.out::println);
        } finally {
            SharedInfra.deleteTree(kafkaDir);
        }
    }

    private static String run(String bootstrap, String jdbcUrl, int instances, int rounds, int workers,
                              boolean mirror) throws Exception {
        String isolation = "fleet_" + Long.toHexString(System.nanoTime());
        Path state = Files.createTempDirectory("fleet-bench");
        WardenConfig a = BenchFleet.instanceA(isolation, state, mirror, Long.parseLong(System.getenv()
                // The audit writer's batch interval, as warden.streams.mirror-commit-interval-ms sets it.
                .getOrDefault("WARDEN_STREAMS_MIRROR__COMMIT__INTERVAL__MS", "20")));
        WardenConfig b = a.toBuilder().roles("api").instanceId(isolation + "-b").build();
        try (WardenPlatform first = WardenPlatform.start(a, bootstrap, jdbcUrl, Clock.systemUTC());
             WardenPlatform second = instances == 2 ? WardenPlatform.start(b, bootstrap, jdbcUrl, Clock.systemUTC())
                     : null) {
            URI ua = first.baseUri();
            URI ub = second == null ? ua : second.baseUri();
            String[] load = BenchFleet.agent(ua);
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicLong decisions = new AtomicLong();
            ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
            for (int w = 0; w < workers; w++) {
                URI target = w % 2 == 0 ? ua : ub;
                pool.submit(() -> {
                    while (running.get()) {
                        try {
                            authorize(target, load);
                            decisions.incrementAndGet();
                        } catch (Exception e) {
                            // counted as missing throughput only
                        }
                    }
                    return null;
                });
            }
            // An SSE subscriber on B: when does A's agent.revoked event reach it?
            Map<String, Long> seenOnB = new ConcurrentHashMap<>();
            var stream = BenchFleet.events(ub, "agent.revoked");
            Thread.ofVirtual().start(() -> {
                try {
                    stream.get().body().forEach(line -> {
                        int at = line.indexOf("agt_");
                        if (line.startsWith("data:") && at >= 0) {
                            seenOnB.putIfAbsent(line.substring(at, Math.min(line.length(), at + 30)), System.nanoTime());
                        }
                    });
                } catch (Exception e) {
                    // the stream ends when the platform stops
                }
            });
            Thread.sleep(5_000); // warm-up under load
            long startDecisions = decisions.get();
            long startNanos = System.nanoTime();
            List<Double> delays = new ArrayList<>();
            List<Double> sseDelays = new ArrayList<>();
            long allowedAfter = 0;
            for (int r = 0; r < rounds; r++) {
                String[] probe = BenchFleet.agent(ua);
                if (!authorize(ub, probe)) {
                    throw new IllegalStateException("B did not allow a fresh agent");
                }
                Thread.sleep(ThreadLocalRandom.current().nextInt(1_000));
                int status = BenchFleet.send(HttpRequest.newBuilder(ua.resolve("/agents/" + probe[0]))
                        .header("Authorization", "Bearer " + BenchFleet.ADMIN).DELETE()).statusCode();
                long revoked = System.nanoTime();
                if (status != 204) {
                    throw new IllegalStateException("revocation answered " + status);
                }
                while (authorize(ub, probe)) {
                    allowedAfter++;
                    Thread.sleep(1);
                    if (System.nanoTime() - revoked > 10_000_000_000L) {
                        throw new IllegalStateException("B still allows a revoked agent after 10 s");
                    }
                }
                delays.add((System.nanoTime() - revoked) / 1e6);
                long waitUntil = System.nanoTime() + 5_000_000_000L;
                while (!seenOnB.containsKey(probe[0]) && System.nanoTime() < waitUntil) {
                    Thread.sleep(1);
                }
                Long seen = seenOnB.get(probe[0]);
                sseDelays.add(seen == null ? 5_000.0 : Math.max(0, seen - revoked) / 1e6);
            }
            double seconds = (System.nanoTime() - startNanos) / 1e9;
            long perSecond = Math.round((decisions.get() - startDecisions) / seconds);
            running.set(false);
            pool.shutdown();
            pool.awaitTermination(10, TimeUnit.SECONDS);
            Collections.sort(delays);
            Collections.sort(sseDelays);
            return String.format(Locale.ROOT, "%-9d %-13s %7d %9.1f %9.1f %9.1f %9.1f %14d %12d %9.1f %9.1f %9.1f",
                    instances, mirror ? "on (default)" : "off", rounds, pct(delays, 50), pct(delays, 90), pct(delays, 99),
                    delays.getLast(), allowedAfter, perSecond, pct(sseDelays, 50), pct(sseDelays, 90),
                    sseDelays.getLast());
        } finally {
            SharedInfra.deleteTree(state);
            BenchFleet.dropSchema(jdbcUrl, isolation);
        }
    }

    private static double pct(List<Double> sorted, int p) {
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1));
    }

    /** True when {@code base} allows the agent to read; false on a denial or a refused token. */
    private static boolean authorize(URI base, String[] agent) throws Exception {
        HttpResponse<String> r = BenchFleet.send(HttpRequest.newBuilder(base.resolve("/authorize"))
                .header("Authorization", "Bearer " + agent[1]).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"agentId\":\"" + agent[0]
                        + "\",\"action\":\"read\",\"resource\":\"mcp:fleet:x\"}")));
        return r.statusCode() == 200 && r.body().contains("\"allowed\":true");
    }
}
