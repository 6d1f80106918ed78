package dev.warden.bench;

import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Requests the in-process broker has handled so far, by request type (its {@code RequestsPerSec} meters' counts,
 * every API version summed). The broker's share of the audit events' cost is mostly per request, not per byte, so
 * the benches report requests per decision beside CPU time.
 */
final class BrokerRequests {
    private BrokerRequests() {}

    /** Requests handled so far, by type. */
    static Map<String, Long> counts() {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        Map<String, Long> counts = new TreeMap<>();
        try {
            for (ObjectName name : server.queryNames(
                    new ObjectName("kafka.network:type=RequestMetrics,name=RequestsPerSec,*"), null)) {
                long count = ((Number) server.getAttribute(name, "Count")).longValue();
                counts.merge(name.getKeyProperty("request"), count, Long::sum);
            }
        } catch (JMException e) {
            throw new IllegalStateException("broker request meters unreadable", e);
        }
        return counts;
    }

    /** {@code Fetch 1.23, Produce 0.45, …}: requests per {@code decisions / 1000} since {@code before}. */
    static String perThousand(Map<String, Long> before, Map<String, Long> after, long decisions) {
        StringBuilder out = new StringBuilder();
        after.forEach((type, count) -> {
            double per = (count - before.getOrDefault(type, 0L)) * 1000.0 / Math.max(1, decisions);
            if (per >= 0.05) {
                out.append(out.isEmpty() ? "" : ", ").append(String.format(Locale.ROOT, "%s %.2f", type, per));
            }
        });
        return out.toString();
    }
}
