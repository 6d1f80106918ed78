package dev.warden.bench;

import dev.warden.api.config.WardenConfig;
import dev.warden.embedded.EmbeddedKafka;
import dev.warden.launcher.WardenPlatform;
import dev.warden.pipeline.contract.Json;
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
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Revocation visibility under decision load, across two API instances and on one (run by deploy/bench/fleet.sh,
 * never by the test suite). Instance A runs every role, instance B the API only, on one broker and one database.
 * While {@code load} workers send {@code POST /authorize} to both, each round makes a probe on A (an agent allowed
 * to read {@code mcp:fleet:*}, or an agent holding that only through a delegation), has B allow it (so B caches
 * it), waits a random 0-1 s, revokes it on A (in turn: deletes the agent, rotates its token, revokes the
 * delegation) and then asks B every millisecond (with the token it had) until B stops allowing it: the delay
 * from A's answer to B's first refusal, B's own time to answer that request, how many allowed answers B gave
 * after A's answer, and when the revocation's stream event reached an SSE subscriber on B. With one instance, B
 * is A itself: the same figures for the instance that answered the revocation (its baseline).
 * Run with the {@code audit} stream events on (the default) and off, for each fleet size of {@code -Dbench.fleets}
 * (default {@code 2,1}), in the same process, each run after {@code -Dbench.warmup-ms} (20 s) of load, after a
 * first run of 20 rounds that is not reported (it warms the JVM). Arguments:
 * {@code <jdbc-url> <rounds> <load-workers>}.
 */
public final class FleetBench {
    private static final long WARMUP_MS = Long.getLong("bench.warmup-ms", 20_000);

    private FleetBench() {}

    public static void main(String[] args) throws Exception {
        String jdbcUrl = args[0];
        int rounds = Integer.parseInt(args[1]);
        int workers = Integer.parseInt(args[2]);
        Path kafkaDir = SharedInfra.worldTraversableTempDir();
        try (EmbeddedKafka kafka = EmbeddedKafka.start(kafkaDir)) {
            // Not reported: the first run in the JVM is the coldest (its load ran at a third of the others' speed).
            run(kafka.bootstrap(), jdbcUrl, 2, Math.min(rounds, 20), workers, true);
            List<String> lines = new ArrayList<>();
            for (String fleet : System.getProperty("bench.fleets", "2,1").split(",")) {
                for (boolean mirror : new boolean[] {true, false}) {
                    lines.add(run(kafka.bootstrap(), jdbcUrl, Integer.parseInt(fleet.trim()), rounds, workers, mirror));
                }
            }
            System.out.println();
            System.out.println(BenchFleet.postgresSettings(jdbcUrl));
            System.out.println("revocation visibility on instance B (with one instance: on A) after A answered a"
                    + " revocation (agent deleted, token rotated, delegation revoked, in turn)");
            System.out.println("p50..max: from A's answer to B's first refusal; allowed after: allowed answers B"
                    + " gave after A's answer (last: the latest, ms after it); answer p50/p99: B's own time to answer"
                    + " the refused request (part of the delay); SSE: the revocation's event on B's SSE stream after"
                    + " A's answer");
            System.out.printf(
                    "%-9s %-13s %7s %9s %9s %9s %9s %14s %9s %9s %9s %12s %9s %9s %9s%n",
                    "instances",
                    "audit events",
                    "rounds",
                    "p50 ms",
                    "p90 ms",
                    "p99 ms",
                    "max ms",
                    "allowed after",
                    "last ms",
                    "answer50",
                    "answer99",
                    "decisions/s",
                    "SSE p50",
                    "SSE p90",
                    "SSE max");
            lines.forEach(System.out::println);
        } finally {
            SharedInfra.deleteTree(kafkaDir);
        }
    }

    private static String run(String bootstrap, String jdbcUrl, int instances, int rounds, int workers, boolean mirror)
            throws Exception {
        String isolation = "fleet_" + Long.toHexString(System.nanoTime());
        Path state = Files.createTempDirectory("fleet-bench");
        WardenConfig a = BenchFleet.instanceA(
                isolation,
                state,
                mirror,
                Long.parseLong(System.getenv()
                        // The audit writer's batch interval, as warden.streams.mirror-commit-interval-ms sets it.
                        .getOrDefault("WARDEN_STREAMS_MIRROR__COMMIT__INTERVAL__MS", "20")));
        WardenConfig b = a.toBuilder().roles("api").instanceId(isolation + "-b").build();
        try (WardenPlatform first = WardenPlatform.start(a, bootstrap, jdbcUrl, Clock.systemUTC());
                WardenPlatform second =
                        instances == 2 ? WardenPlatform.start(b, bootstrap, jdbcUrl, Clock.systemUTC()) : null) {
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
            // An SSE subscriber on B: when does A's event of the revocation reach it?
            Queue<Seen> seenOnB = new ConcurrentLinkedQueue<>();
            var stream = BenchFleet.events(ub, "agent.revoked,agent.rotated,delegation.revoked");
            Thread.ofVirtual().start(() -> {
                try {
                    stream.get().body().forEach(line -> {
                        if (line.startsWith("data:")) {
                            seenOnB.add(new Seen(System.nanoTime(), line));
                        }
                    });
                } catch (Exception e) {
                    // the stream ends when the platform stops
                }
            });
            Thread.sleep(WARMUP_MS); // warm-up under load: the first run in the JVM is otherwise the coldest
            long startDecisions = decisions.get();
            long startNanos = System.nanoTime();
            List<Double> delays = new ArrayList<>();
            List<Double> sseDelays = new ArrayList<>();
            List<Double> answerTimes = new ArrayList<>();
            long allowedAfter = 0;
            double lastAllowed = 0;
            for (int r = 0; r < rounds; r++) {
                Probe probe = Probe.of(Kind.values()[r % Kind.values().length], ua);
                if (!authorize(ub, probe.agent())) {
                    throw new IllegalStateException("B did not allow a fresh " + probe.kind() + " probe");
                }
                Thread.sleep(ThreadLocalRandom.current().nextInt(1_000));
                long revoked = probe.revoke(ua);
                long sent = System.nanoTime();
                while (authorize(ub, probe.agent())) {
                    allowedAfter++;
                    lastAllowed = Math.max(lastAllowed, (System.nanoTime() - revoked) / 1e6);
                    Thread.sleep(1);
                    if (System.nanoTime() - revoked > 10_000_000_000L) {
                        throw new IllegalStateException("B still allows after a " + probe.kind() + " after 10 s");
                    }
                    sent = System.nanoTime();
                }
                long refused = System.nanoTime();
                delays.add((refused - revoked) / 1e6);
                answerTimes.add((refused - sent) / 1e6);
                long waitUntil = System.nanoTime() + 5_000_000_000L;
                Long seen = null;
                while (seen == null && System.nanoTime() < waitUntil) {
                    seen = seenOnB.stream()
                            .filter(e -> e.line().contains(probe.eventKey()))
                            .map(Seen::at)
                            .findFirst()
                            .orElse(null);
                    Thread.sleep(1);
                }
                sseDelays.add(seen == null ? 5_000.0 : Math.max(0, seen - revoked) / 1e6);
            }
            double seconds = (System.nanoTime() - startNanos) / 1e9;
            long perSecond = Math.round((decisions.get() - startDecisions) / seconds);
            running.set(false);
            pool.shutdown();
            pool.awaitTermination(10, TimeUnit.SECONDS);
            Collections.sort(delays);
            Collections.sort(sseDelays);
            Collections.sort(answerTimes);
            return String.format(
                    Locale.ROOT,
                    "%-9d %-13s %7d %9.1f %9.1f %9.1f %9.1f %14d %9.1f %9.1f %9.1f %12d" + " %9.1f %9.1f %9.1f",
                    instances,
                    mirror ? "on (default)" : "off",
                    rounds,
                    pct(delays, 50),
                    pct(delays, 90),
                    pct(delays, 99),
                    delays.getLast(),
                    allowedAfter,
                    lastAllowed,
                    pct(answerTimes, 50),
                    pct(answerTimes, 99),
                    perSecond,
                    pct(sseDelays, 50),
                    pct(sseDelays, 90),
                    sseDelays.getLast());
        } finally {
            SharedInfra.deleteTree(state);
            BenchFleet.dropSchema(jdbcUrl, isolation);
        }
    }

    private static double pct(List<Double> sorted, int p) {
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1));
    }

    /** An SSE line and when it arrived. */
    private record Seen(long at, String line) {}

    /** What a round revokes. */
    private enum Kind {
        AGENT_REVOKED,
        TOKEN_ROTATED,
        DELEGATION_REVOKED
    }

    /**
     * One round's subject: the agent B is asked about ({@code [id, token]}, the token B presents), what A revokes
     * ({@code path}, with {@code method}), and the id its stream event names.
     */
    private record Probe(Kind kind, String[] agent, String method, String path, String eventKey) {
        static Probe of(Kind kind, URI a) throws Exception {
            String[] agent = BenchFleet.agent(a);
            return switch (kind) {
                case AGENT_REVOKED -> new Probe(kind, agent, "DELETE", "/agents/" + agent[0], agent[0]);
                case TOKEN_ROTATED -> new Probe(kind, agent, "POST", "/agents/" + agent[0] + "/rotate", agent[0]);
                case DELEGATION_REVOKED -> {
                    // The target holds nothing of its own on mcp:fleet:*; the source delegates it read.
                    String[] target = BenchFleet.agent(a, "mcp:other:*");
                    HttpResponse<String> r = BenchFleet.send(HttpRequest.newBuilder(a.resolve("/delegations"))
                            .header("Authorization", "Bearer " + BenchFleet.ADMIN)
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"fromAgent\":\"" + agent[0]
                                    + "\",\"toAgent\":\"" + target[0] + "\",\"permissions\":[{\"resource\":"
                                    + "\"mcp:fleet:*\",\"actions\":[\"read\"]}]}")));
                    if (r.statusCode() != 201) {
                        throw new IllegalStateException("delegation answered " + r.statusCode() + ": " + r.body());
                    }
                    String id = Json.mapper().readTree(r.body()).get("id").asText();
                    yield new Probe(kind, target, "DELETE", "/delegations/" + id, id);
                }
            };
        }

        /** Revokes on {@code a} and answers when A's answer arrived ({@link System#nanoTime()}). */
        long revoke(URI a) throws Exception {
            int status = BenchFleet.send(HttpRequest.newBuilder(a.resolve(path))
                            .header("Authorization", "Bearer " + BenchFleet.ADMIN)
                            .method(method, HttpRequest.BodyPublishers.noBody()))
                    .statusCode();
            long answered = System.nanoTime();
            if (status != 204 && status != 200) {
                throw new IllegalStateException(kind + " answered " + status);
            }
            return answered;
        }
    }

    /** True when {@code base} allows the agent to read; false on a denial or a refused token. */
    private static boolean authorize(URI base, String[] agent) throws Exception {
        HttpResponse<String> r = BenchFleet.send(HttpRequest.newBuilder(base.resolve("/authorize"))
                .header("Authorization", "Bearer " + agent[1])
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"agentId\":\"" + agent[0] + "\",\"action\":\"read\",\"resource\":\"mcp:fleet:x\"}")));
        return r.statusCode() == 200 && r.body().contains("\"allowed\":true");
    }
}
