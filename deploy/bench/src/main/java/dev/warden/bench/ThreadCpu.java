package dev.warden.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * CPU time by thread group in this JVM: each live thread's CPU time, summed by its name with digits taken out
 * ({@code kafka-producer-network-thread | producer-7} and {@code … | producer-9} are one group). A thread that
 * started and ended between two snapshots is not counted, so the groups add up to a little less than
 * {@link CpuMeter#jvm()}; the bench prints both.
 */
final class ThreadCpu {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private ThreadCpu() {}

    /** Thread id to its name and CPU time so far, in nanoseconds. */
    record Snapshot(Map<Long, String> names, Map<Long, Long> nanos) {}

    static Snapshot snapshot() {
        Map<Long, String> names = new HashMap<>();
        Map<Long, Long> nanos = new HashMap<>();
        long[] ids = THREADS.getAllThreadIds();
        ThreadInfo[] infos = THREADS.getThreadInfo(ids);
        for (int i = 0; i < ids.length; i++) {
            long cpu = THREADS.getThreadCpuTime(ids[i]);
            if (infos[i] != null && cpu >= 0) {
                names.put(ids[i], infos[i].getThreadName());
                nanos.put(ids[i], cpu);
            }
        }
        return new Snapshot(names, nanos);
    }

    /** CPU time between the snapshots by group, in nanoseconds. */
    static Map<String, Long> between(Snapshot start, Snapshot end) {
        Map<String, Long> groups = new HashMap<>();
        end.nanos().forEach((id, nanos) -> {
            long spent = nanos - start.nanos().getOrDefault(id, 0L);
            groups.merge(group(end.names().get(id)), spent, Long::sum);
        });
        return groups;
    }

    /** The groups of {@code on} and {@code off} that differ most, in µs per decision, largest first. */
    static String compare(Map<String, Long> off, long offDecisions, Map<String, Long> on, long onDecisions, int top) {
        Map<String, double[]> rows = new HashMap<>();
        off.forEach((g, n) -> rows.computeIfAbsent(g, k -> new double[2])[0] = n / 1e3 / Math.max(1, offDecisions));
        on.forEach((g, n) -> rows.computeIfAbsent(g, k -> new double[2])[1] = n / 1e3 / Math.max(1, onDecisions));
        double offSum = rows.values().stream().mapToDouble(r -> r[0]).sum();
        double onSum = rows.values().stream().mapToDouble(r -> r[1]).sum();
        return String.format(Locale.ROOT, "threads, µs per decision off / on (all %.1f / %.1f): ", offSum, onSum)
                + rows.entrySet().stream()
                        .sorted((a, b) -> Double.compare(
                                Math.abs(b.getValue()[1] - b.getValue()[0]),
                                Math.abs(a.getValue()[1] - a.getValue()[0])))
                        .limit(top)
                        .map(e -> String.format(
                                Locale.ROOT, "%s %.1f / %.1f", e.getKey(), e.getValue()[0], e.getValue()[1]))
                        .collect(Collectors.joining("; "));
    }

    /** The {@code top} groups of {@code threads} by CPU, in µs per decision, largest first. */
    static String top(Map<String, Long> threads, long decisions, int top) {
        double perDecision = 1e3 * Math.max(1, decisions); // nanoseconds to µs per decision
        double all = threads.values().stream().mapToLong(Long::longValue).sum() / perDecision;
        return String.format(Locale.ROOT, "threads, µs per decision (all %.1f): ", all)
                + threads.entrySet().stream()
                        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                        .limit(top)
                        .map(e -> String.format(Locale.ROOT, "%s %.1f", e.getKey(), e.getValue() / perDecision))
                        .collect(Collectors.joining("; "));
    }

    private static String group(String name) {
        return name == null ? "?" : name.replaceAll("stream_[0-9a-f]+", "").replaceAll("[0-9]+", "#");
    }
}
