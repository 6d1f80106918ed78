package dev.warden.bench;

import dev.warden.api.ratelimit.ClientIp;
import dev.warden.api.ratelimit.MemoryRateLimitStore;
import dev.warden.api.ratelimit.RateLimit;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.api.ratelimit.RateLimitFilter;
import dev.warden.api.ratelimit.RateLimiter;
import dev.warden.api.ratelimit.RedisRateLimitStore;
import io.helidon.http.Method;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.JedisPooled;

/**
 * Cost of the rate limiter per request (run by deploy/bench/ratelimit.sh, never by the test suite):
 * <ol>
 *   <li>memory: what {@link RateLimitFilter} does per request besides reading the socket address (path
 *       match, client key, sliding-window acquisition) in ns/op, for one hot client that is mostly
 *       rejected and for 100,000 clients that are admitted, on 1 and 2 threads;</li>
 *   <li>redis: latency of one acquisition against a real Redis (p50, p99) and the number of Redis
 *       commands it sends, read from {@code INFO commandstats}.</li>
 * </ol>
 * Arguments: {@code [redis-url] [redis-ops]}; the Redis part is skipped when Redis does not answer.
 */
public final class RateLimiterBench {
    private static final int WARMUPS = 3;
    private static final int ROUNDS = 5;
    private static final int OPS = 2_000_000;
    private static final AtomicLong SINK = new AtomicLong();

    private RateLimiterBench() {}

    public static void main(String[] args) throws Exception {
        String redisUrl = args.length > 0 ? args[0] : "redis://127.0.0.1:6379";
        int redisOps = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        System.out.printf(
                "JDK %s, %d cpus%n", Runtime.version(), Runtime.getRuntime().availableProcessors());
        memory("hot client, mostly rejected", 1, 1, 1_000_000_000);
        memory("100k clients, admitted", 100_000, 1, 1_000_000_000);
        memory("hot client, mostly rejected", 1, 2, 1_000_000_000);
        memory("100k clients, admitted", 100_000, 2, 1_000_000_000);
        redis(redisUrl, redisOps);
    }

    /** ns per request of the limiter's in-process work, median of {@link #ROUNDS} rounds. */
    private static void memory(String scenario, int clients, int threads, int limit) throws Exception {
        InstantSource clock = InstantSource.system();
        RateLimiter limiter = RateLimiter.builder("bench")
                .limit(clients == 1 ? 10 : limit)
                .window(60)
                .store(new MemoryRateLimitStore(clock))
                .clock(clock)
                .build();
        RateLimitFilter filter = new RateLimitFilter(List.of(
                new RateLimitFilter.Rule(Method.POST, "/auth/sign-in", limiter),
                new RateLimitFilter.Rule(Method.POST, "/auth/sign-up", limiter),
                new RateLimitFilter.Rule(Method.POST, "/mcp/token", limiter)));
        InetAddress[] addresses = addresses(clients);
        double[] results = new double[ROUNDS];
        for (int round = -WARMUPS; round < ROUNDS; round++) {
            double nsPerOp = timed(threads, () -> {
                long admitted = 0;
                for (int i = 0; i < OPS; i++) {
                    RateLimiter matched =
                            filter.limiterFor(Method.POST, "/auth/sign-in").orElseThrow();
                    String key = ClientIp.keyOf(addresses[i % addresses.length]);
                    admitted += matched.acquire(key).allowed() ? 1 : 0;
                }
                SINK.addAndGet(admitted);
            });
            if (round >= 0) {
                results[round] = nsPerOp;
            }
        }
        Arrays.sort(results);
        System.out.printf(
                "memory  %-28s threads=%d  %7.0f ns/request (median of %d; min %.0f, max %.0f)%n",
                scenario, threads, results[ROUNDS / 2], ROUNDS, results[0], results[ROUNDS - 1]);
    }

    /** Wall time of {@code threads} copies of {@code work} (each {@link #OPS} requests) per request per thread. */
    private static double timed(int threads, Runnable work) throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                work.run();
            }));
        }
        long begin = System.nanoTime();
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        return (System.nanoTime() - begin) / (double) OPS;
    }

    private static void redis(String url, int ops) {
        try (JedisPooled admin = new JedisPooled(URI.create(url));
                RedisRateLimitStore store = new RedisRateLimitStore(
                        url,
                        "warden-bench:" + System.nanoTime() + ":",
                        Duration.ofSeconds(2),
                        InstantSource.system())) {
            if (!store.ping()) {
                System.out.println("redis   skipped: no Redis answers at " + RateLimitConfig.mask(url));
                return;
            }
            RateLimit rule = RateLimit.perMinute(1_000_000_000);
            for (int i = 0; i < 2_000; i++) {
                store.acquire("warm-" + (i % 100), rule);
            }
            long evalshaBefore = calls(admin, "cmdstat_evalsha:");
            long allBefore = calls(admin, "cmdstat_");
            long[] nanos = new long[ops];
            for (int i = 0; i < ops; i++) {
                long t0 = System.nanoTime();
                store.acquire("client-" + (i % 1_000), rule);
                nanos[i] = System.nanoTime() - t0;
            }
            long evalsha = calls(admin, "cmdstat_evalsha:") - evalshaBefore;
            long all = calls(admin, "cmdstat_") - allBefore - 2;
            Arrays.sort(nanos);
            System.out.printf(
                    "redis   %d acquisitions: p50 %.1f us, p99 %.1f us; client commands (round trips): "
                            + "%.2f EVALSHA per acquisition, %.2f commands run inside the script%n",
                    ops,
                    nanos[ops / 2] / 1e3,
                    nanos[(int) (ops * 0.99)] / 1e3,
                    evalsha / (double) ops,
                    (all - evalsha) / (double) ops);
        }
    }

    /**
     * Sum of {@code calls=} over the {@code INFO commandstats} lines starting with {@code prefix}; Redis
     * counts the commands a script runs there too, and the INFO call itself once.
     */
    private static long calls(JedisPooled admin, String prefix) {
        long total = 0;
        for (String line : admin.info("commandstats").split("\r?\n")) {
            int at = line.indexOf("calls=");
            if (line.startsWith(prefix) && at >= 0) {
                total += Long.parseLong(line.substring(at + 6, line.indexOf(',', at)));
            }
        }
        return total;
    }

    private static InetAddress[] addresses(int count) throws UnknownHostException {
        InetAddress[] out = new InetAddress[count];
        for (int i = 0; i < count; i++) {
            out[i] = InetAddress.getByAddress(new byte[] {10, (byte) (i >> 16), (byte) (i >> 8), (byte) i});
        }
        return out;
    }
}
