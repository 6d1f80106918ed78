package dev.warden.bench;

import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Two fleets' throughput measured in alternating windows instead of one after the other: both run at once on the
 * same broker and database, and the load moves from one to the other every {@code windowMs} (in the order
 * A B B A A B …, so a drift of the machine's speed falls on both alike). On a shared machine whose speed swings by
 * ±20 % over minutes, two runs a minute apart differ by that much for nothing; two sets of windows interleaved over
 * the same minutes do not. Each window's first {@code settleMs} are not counted: the fleet that just lost the load
 * is still draining what it was given (its writer's last batch, its readers), which the other's window pays for.
 * Per fleet, from the windows it had the load in: decisions per second, the CPU time per decision (this JVM and
 * PostgreSQL; and by thread group, {@link ThreadCpu}) and the broker's requests per 1,000 decisions. The idle
 * fleet's background work (its readers polling) falls in the other's windows, alike for both.
 */
final class InterleavedLoad {
    private final Object gate = new Object();
    private volatile int active = -1;
    private volatile boolean running = true;

    /**
     * Loads fleet {@code f} ({@code bases[f]}, its instances, which its workers take turns on, and
     * {@code agents[f]}) with {@code workers} keep-alive connections in its windows: {@code warmup} windows first (not counted), then {@code windows} counted ones.
     */
    static List<StreamBench.Load> run(
            URI[][] bases,
            String[][] agents,
            int workers,
            int warmup,
            int windows,
            long windowMs,
            long settleMs,
            Decider decider)
            throws Exception {
        return new InterleavedLoad().measure(bases, agents, workers, warmup, windows, windowMs, settleMs, decider);
    }

    /** Sends one decision on {@code client}; throws when it is not answered 200. */
    interface Decider {
        void decide(KeepAliveClient client, String[] agent) throws Exception;
    }

    private List<StreamBench.Load> measure(
            URI[][] bases,
            String[][] agents,
            int workers,
            int warmup,
            int windows,
            long windowMs,
            long settleMs,
            Decider decider)
            throws Exception {
        int fleets = bases.length;
        AtomicLong[] decisions = new AtomicLong[fleets];
        AtomicReference<String> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int f = 0; f < fleets; f++) {
            decisions[f] = new AtomicLong();
            int fleet = f;
            for (int w = 0; w < workers; w++) {
                URI target = bases[f][w % bases[f].length];
                threads.add(Thread.ofPlatform()
                        .daemon()
                        .name("load-" + f + "-" + w)
                        .start(() -> {
                            try (KeepAliveClient client = new KeepAliveClient(target)) {
                                while (awaitTurn(fleet)) {
                                    decider.decide(client, agents[fleet]);
                                    decisions[fleet].incrementAndGet();
                                }
                            } catch (Exception e) {
                                failure.compareAndSet(null, e.toString());
                            }
                        }));
            }
        }
        long[] counted = new long[fleets];
        double[] seconds = new double[fleets];
        double[] jvm = new double[fleets];
        double[] postgres = new double[fleets];
        List<Map<String, Long>> byThread = new ArrayList<>();
        List<Map<String, Long>> requests = new ArrayList<>();
        for (int f = 0; f < fleets; f++) {
            byThread.add(new HashMap<>());
            requests.add(new TreeMap<>());
        }
        try {
            for (int window = 0; window < warmup + windows; window++) {
                int fleet = order(window, fleets);
                switchTo(fleet);
                Thread.sleep(settleMs);
                long start = decisions[fleet].get();
                long startNanos = System.nanoTime();
                long startJvm = CpuMeter.jvm();
                long startPostgres = CpuMeter.postgres();
                ThreadCpu.Snapshot startThreads = ThreadCpu.snapshot();
                Map<String, Long> startRequests = BrokerRequests.counts();
                Thread.sleep(windowMs - settleMs);
                if (window < warmup) {
                    continue;
                }
                counted[fleet] += decisions[fleet].get() - start;
                seconds[fleet] += (System.nanoTime() - startNanos) / 1e9;
                jvm[fleet] += (CpuMeter.jvm() - startJvm) / 1e3;
                postgres[fleet] += (CpuMeter.postgres() - startPostgres) / 1e3;
                ThreadCpu.between(startThreads, ThreadCpu.snapshot())
                        .forEach((group, nanos) -> byThread.get(fleet).merge(group, nanos, Long::sum));
                BrokerRequests.counts()
                        .forEach((type, count) -> requests.get(fleet)
                                .merge(type, count - startRequests.getOrDefault(type, 0L), Long::sum));
                if (failure.get() != null) {
                    break;
                }
            }
        } finally {
            running = false;
            switchTo(-1);
            for (Thread t : threads) {
                t.join(10_000);
            }
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a load worker failed: " + failure.get());
        }
        List<StreamBench.Load> results = new ArrayList<>();
        for (int f = 0; f < fleets; f++) {
            long n = Math.max(1, counted[f]);
            results.add(new StreamBench.Load(
                    Math.round(counted[f] / seconds[f]),
                    jvm[f] / n,
                    postgres[f] / n,
                    BrokerRequests.perThousand(Map.of(), requests.get(f), counted[f]),
                    counted[f],
                    byThread.get(f)));
        }
        return results;
    }

    /** The fleet of window {@code i}: A B B A A B B A … for two fleets, round robin for more. */
    static int order(int i, int fleets) {
        if (fleets != 2) {
            return i % fleets;
        }
        return ((i + 1) / 2) % 2;
    }

    private void switchTo(int fleet) {
        synchronized (gate) {
            active = fleet;
            gate.notifyAll();
        }
    }

    /** Waits until {@code fleet} has the load; false once the measurement is over. */
    private boolean awaitTurn(int fleet) throws InterruptedException {
        if (active == fleet) {
            return true;
        }
        synchronized (gate) {
            while (running && active != fleet) {
                gate.wait();
            }
        }
        return running;
    }
}
