package dev.warden.api.ratelimit;

import dev.warden.api.errors.UnavailableException;
import dev.warden.api.http.Problems;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.logging.Logger;

/**
 * A reusable sliding-window limiter (SPEC Limits, "Custom limiter"): at most {@code limit} requests per
 * {@code window} per key, the key given by {@code keyFn} (by default the client IP, see {@link ClientIp}),
 * counted in a {@link RateLimitStore} (in memory, or Redis to share counters between instances).
 *
 * <p>{@link #wrap(Handler)} is the middleware: it answers the SPEC's 429 and skips the handler when the
 * limiter rejects. When the store is unavailable the limiter applies its {@link FailMode}: {@code OPEN}
 * admits the request, {@code CLOSED} answers 503 {@code unavailable} with {@code Retry-After: 1}; each
 * switch into and out of that state is logged once. Thread-safe.
 *
 * <pre>{@code
 * RateLimiter exports = RateLimiter.builder("export").limit(5).window(60).build();
 * rules.get("/export", exports.wrap(this::export));
 * }</pre>
 */
public final class RateLimiter implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(RateLimiter.class.getName());

    private final String name;
    private final RateLimit rule;
    private final Function<ServerRequest, String> keyFn;
    private final RateLimitStore store;
    private final boolean ownsStore;
    private final FailMode failMode;
    private final AtomicBoolean degraded = new AtomicBoolean();

    private RateLimiter(Builder b, RateLimitStore store, boolean ownsStore) {
        this.name = b.name;
        this.rule = new RateLimit(b.limit, Duration.ofSeconds(b.windowSeconds));
        this.keyFn = b.keyFn;
        this.store = store;
        this.ownsStore = ownsStore;
        this.failMode = b.failMode;
    }

    /** A builder for a limiter called {@code name} (its counters are namespaced by the name). */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    public String name() {
        return name;
    }

    public RateLimit rule() {
        return rule;
    }

    public FailMode failMode() {
        return failMode;
    }

    /**
     * Counts one request of {@code key}.
     *
     * @throws RateLimitStoreUnavailableException when the store is down and the fail mode is {@code CLOSED}
     */
    public Decision acquire(String key) {
        try {
            Decision decision = store.acquire(name + ":" + key, rule);
            if (degraded.compareAndSet(true, false)) {
                LOG.info("rate limiter '" + name + "' is enforcing again: its store answers");
            }
            return decision;
        } catch (RateLimitStoreUnavailableException e) {
            if (degraded.compareAndSet(false, true)) {
                LOG.warning("rate limiter '" + name + "' cannot reach its store (" + e.getMessage() + "); failing "
                        + failMode.wireName()
                        + (failMode == FailMode.OPEN
                                ? ": requests are admitted unlimited"
                                : ": requests are refused with 503")
                        + " until it answers");
            }
            if (failMode == FailMode.OPEN) {
                return Decision.allow(rule, rule.limit());
            }
            throw e;
        }
    }

    /** Counts one request of {@code req}'s key. See {@link #acquire(String)}. */
    public Decision check(ServerRequest req) {
        return acquire(keyFn.apply(req));
    }

    /**
     * Counts {@code req}; when it is over the limit (or the store is down and the mode is closed) answers
     * 429 (or 503) on {@code res} and returns false, else returns true and leaves {@code res} untouched.
     */
    public boolean admit(ServerRequest req, ServerResponse res) {
        Decision decision;
        try {
            decision = check(req);
        } catch (RateLimitStoreUnavailableException e) {
            Problems.sendProblem(
                    req,
                    res,
                    new UnavailableException(
                            "rate limiting is temporarily unavailable; retry shortly", Duration.ofSeconds(1)));
            return false;
        }
        if (!decision.allowed()) {
            RateLimitResponses.send(res, decision);
            return false;
        }
        return true;
    }

    /** The middleware: {@code handler} runs only for admitted requests. */
    public Handler wrap(Handler handler) {
        Objects.requireNonNull(handler, "handler");
        return (req, res) -> {
            if (admit(req, res)) {
                handler.handle(req, res);
            }
        };
    }

    /** Closes the store if this limiter created it (built with {@link Builder#store(StoreKind)}). */
    @Override
    public void close() {
        if (ownsStore) {
            store.close();
        }
    }

    @Override
    public String toString() {
        return "RateLimiter[" + name + ", " + rule.limit() + "/" + rule.windowSeconds() + "s, fail "
                + failMode.wireName() + "]";
    }

    /** Options of a limiter; defaults: 60 requests per 60 s per client IP, in memory, failing closed. */
    public static final class Builder {
        private final String name;
        private int limit = 60;
        private long windowSeconds = 60;
        private Function<ServerRequest, String> keyFn = ClientIp.untrusting()::key;
        private Optional<RateLimitStore> store = Optional.empty();
        private StoreKind storeKind = StoreKind.MEMORY;
        private String redisUrl = "redis://127.0.0.1:6379";
        private String redisKeyPrefix = "warden:rl:";
        private FailMode failMode = FailMode.CLOSED;
        private InstantSource clock = InstantSource.system();

        private Builder(String name) {
            if (name.isBlank() || name.contains(":")) {
                throw new IllegalArgumentException("a limiter name must be non-blank and without ':'");
            }
            this.name = name;
        }

        /** Requests admitted per window. */
        public Builder limit(int limit) {
            this.limit = limit;
            return this;
        }

        /** The window, in seconds. */
        public Builder window(long seconds) {
            this.windowSeconds = seconds;
            return this;
        }

        /** Both at once. */
        public Builder rule(RateLimit rule) {
            this.limit = rule.limit();
            this.windowSeconds = rule.windowSeconds();
            return this;
        }

        /** What requests are counted by; default the client IP (socket peer, no proxy trusted). */
        public Builder keyFn(Function<ServerRequest, String> keyFn) {
            this.keyFn = Objects.requireNonNull(keyFn, "keyFn");
            return this;
        }

        /** The client IP under {@code clientIp}'s proxy rules as the key. */
        public Builder clientIp(ClientIp clientIp) {
            return keyFn(clientIp::key);
        }

        /** Counts in an existing (shared) store; the limiter will not close it. */
        public Builder store(RateLimitStore store) {
            this.store = Optional.of(store);
            return this;
        }

        /** Counts in a store of this kind that the limiter creates and closes. */
        public Builder store(StoreKind kind) {
            this.storeKind = kind;
            this.store = Optional.empty();
            return this;
        }

        /** The Redis of {@link #store(StoreKind) store(REDIS)}. */
        public Builder redisUrl(String redisUrl) {
            this.redisUrl = redisUrl;
            return this;
        }

        /** The key prefix in Redis. */
        public Builder redisKeyPrefix(String prefix) {
            this.redisKeyPrefix = prefix;
            return this;
        }

        /** What happens when the store is unavailable. */
        public Builder failMode(FailMode failMode) {
            this.failMode = failMode;
            return this;
        }

        /** The clock windows are measured by. */
        public Builder clock(InstantSource clock) {
            this.clock = clock;
            return this;
        }

        public RateLimiter build() {
            new RateLimit(limit, Duration.ofSeconds(windowSeconds));
            if (store.isPresent()) {
                return new RateLimiter(this, store.get(), false);
            }
            RateLimitStore created = storeKind == StoreKind.REDIS
                    ? new RedisRateLimitStore(redisUrl, redisKeyPrefix, Duration.ofMillis(250), clock)
                    : new MemoryRateLimitStore(clock);
            return new RateLimiter(this, created, true);
        }
    }
}
