package dev.warden.api.ratelimit;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * Sliding-window counters in Redis, shared by every instance that uses the same Redis and key prefix. One
 * acquisition is one round trip: an {@code EVALSHA} of a Lua script that, atomically on the server, drops
 * the key's admissions older than the window from a sorted set, counts the rest and admits (adds) or
 * rejects. The key expires one window after its last admission, so idle clients cost nothing.
 *
 * <p>Time comes from the injected clock of the caller (scores are epoch milliseconds), so instances must
 * keep their clocks in sync (NTP); a skew of {@code s} shifts an instance's view of the window by {@code s}.
 *
 * <p>When Redis does not answer within the timeout, {@link #acquire} throws
 * {@link RateLimitStoreUnavailableException} and, for one second after that, fails fast without trying,
 * so a dead Redis does not add a timeout to every request. Thread-safe.
 */
public final class RedisRateLimitStore implements RateLimitStore {
    private static final Logger LOG = Logger.getLogger(RedisRateLimitStore.class.getName());
    private static final long BACKOFF_NANOS = Duration.ofSeconds(1).toNanos();

    /** KEYS[1] sorted set; ARGV: now ms, window ms, limit, unique member. Returns {admitted, remaining, retry ms}. */
    static final String SCRIPT = """
            local key = KEYS[1]
            local now = tonumber(ARGV[1])
            local window = tonumber(ARGV[2])
            local limit = tonumber(ARGV[3])
            redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
            local count = redis.call('ZCARD', key)
            if count < limit then
              redis.call('ZADD', key, now, ARGV[4])
              redis.call('PEXPIRE', key, window)
              return {1, limit - count - 1, 0}
            end
            local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
            return {0, 0, tonumber(oldest[2]) + window - now}
            """;

    private static final String SCRIPT_SHA = sha1(SCRIPT);

    private final JedisPooled redis;
    private final String keyPrefix;
    private final InstantSource clock;
    private final String where;
    private final String memberPrefix;
    private final AtomicLong sequence = new AtomicLong();
    private final AtomicLong failFastUntil = new AtomicLong(System.nanoTime());
    private final AtomicBoolean down = new AtomicBoolean();

    /**
     * @param redisUrl  {@code redis://[user:password@]host:port[/db]} or {@code rediss://...}
     * @param keyPrefix prepended to every key, e.g. {@code warden:rl:}
     * @param timeout   connect and read timeout of one round trip
     */
    public RedisRateLimitStore(String redisUrl, String keyPrefix, Duration timeout, InstantSource clock) {
        URI uri = URI.create(redisUrl);
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(64);
        pool.setMaxIdle(64);
        pool.setMinIdle(0);
        pool.setMaxWait(timeout);
        pool.setJmxEnabled(false);
        int millis = (int) timeout.toMillis();
        this.redis = new JedisPooled(pool, uri, millis, millis);
        this.keyPrefix = keyPrefix;
        this.clock = clock;
        this.where = uri.getHost() + ":" + (uri.getPort() < 0 ? 6379 : uri.getPort());
        byte[] nonce = new byte[6];
        new SecureRandom().nextBytes(nonce);
        this.memberPrefix = HexFormat.of().formatHex(nonce) + ":";
    }

    @Override
    public Decision acquire(String key, RateLimit rule) {
        if (System.nanoTime() - failFastUntil.get() < 0) {
            throw new RateLimitStoreUnavailableException("Redis at " + where + " is unavailable (backing off)", null);
        }
        long now = clock.millis();
        List<String> keys = List.of(keyPrefix + key);
        List<String> args = List.of(
                Long.toString(now),
                Long.toString(rule.window().toMillis()),
                Integer.toString(rule.limit()),
                memberPrefix + sequence.incrementAndGet());
        try {
            Object reply = eval(keys, args);
            recovered();
            return decode(reply, rule);
        } catch (JedisException e) {
            failFastUntil.set(System.nanoTime() + BACKOFF_NANOS);
            if (down.compareAndSet(false, true)) {
                LOG.log(
                        Level.WARNING,
                        "Redis rate-limit store at " + where + " is unavailable: " + e.getMessage()
                                + "; each limiter now applies its fail mode (open or closed) until Redis answers again");
            }
            throw new RateLimitStoreUnavailableException("Redis at " + where + " is unavailable: " + e.getMessage(), e);
        }
    }

    /** One PING, true when Redis answered. */
    public boolean ping() {
        try {
            return "PONG".equalsIgnoreCase(redis.ping());
        } catch (JedisException e) {
            return false;
        }
    }

    private Object eval(List<String> keys, List<String> args) {
        try {
            return redis.evalsha(SCRIPT_SHA, keys, args);
        } catch (JedisNoScriptException e) {
            return redis.eval(SCRIPT, keys, args);
        }
    }

    private void recovered() {
        if (down.compareAndSet(true, false)) {
            LOG.info("Redis rate-limit store at " + where + " answers again; shared counters are back in force");
        }
    }

    private static Decision decode(Object reply, RateLimit rule) {
        List<?> values = (List<?>) reply;
        long admitted = (Long) values.get(0);
        if (admitted == 1) {
            return Decision.allow(rule, ((Long) values.get(1)).intValue());
        }
        return Decision.reject(rule, Duration.ofMillis(Math.max(0, (Long) values.get(2))));
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required by every JDK", e);
        }
    }

    @Override
    public void close() {
        redis.close();
    }
}
