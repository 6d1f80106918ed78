package dev.warden.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Keeps {@code POST /authorize} busy from a few client threads and remembers every auditId that was
 * answered; then checks, in the platform's schema, how often each was stored.
 */
public final class DecisionLoad implements AutoCloseable {
    private final Set<String> answered = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean flowing = new AtomicBoolean(true);
    private final ExecutorService clients;

    private DecisionLoad(Http http, String token, String agentId, int threads) {
        clients = Executors.newFixedThreadPool(threads);
        for (int c = 0; c < threads; c++) {
            clients.execute(() -> {
                while (flowing.get()) {
                    Http.Response res = http.post(
                            "/authorize",
                            token,
                            "{\"agentId\":\"" + agentId + "\",\"action\":\"read\",\"resource\":\"x:y\"}");
                    if (res.status() == 200) {
                        answered.add(res.json().get("auditId").asText());
                    }
                }
            });
        }
    }

    /** Starts {@code threads} clients asking about {@code agentId}. */
    public static DecisionLoad start(Http http, String token, String agentId, int threads) {
        return new DecisionLoad(http, token, agentId, threads);
    }

    /** The auditIds answered so far. */
    public Set<String> answered() {
        return Set.copyOf(answered);
    }

    /** Stops the clients and waits for them. */
    @Override
    public void close() throws InterruptedException {
        flowing.set(false);
        clients.shutdown();
        if (!clients.awaitTermination(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("decision clients did not stop");
        }
    }

    /**
     * How many rows {@code audit_events} in {@code schema} holds per id, waiting (at most {@code timeout})
     * until every one of {@code ids} is there.
     */
    public static Map<String, Integer> storedCounts(String jdbcUrl, String schema, Set<String> ids, Duration timeout)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, Integer> counts = new HashMap<>();
        while (System.nanoTime() < deadline) {
            counts = new HashMap<>();
            try (Connection conn = DriverManager.getConnection(jdbcUrl);
                    Statement st = conn.createStatement()) {
                st.execute("SET search_path TO " + schema);
                try (ResultSet rs = st.executeQuery("SELECT id, count(*) FROM audit_events GROUP BY id")) {
                    while (rs.next()) {
                        counts.put(rs.getString(1), rs.getInt(2));
                    }
                }
            }
            if (counts.keySet().containsAll(ids)) {
                return counts;
            }
            Thread.sleep(250);
        }
        return counts;
    }
}
