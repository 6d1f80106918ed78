package dev.warden.api.ratelimit;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * Rate limiting of one Warden process: the store of {@code warden.rate-limit} (created here and closed by
 * {@link #close()}), the client-IP rule, and the {@link RateLimitFilter} enforcing the {@link AuthEndpoint}
 * registry. Other components build their own limiters on the same store with {@link #limiter(String)}.
 */
public final class RateLimiting implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(RateLimiting.class.getName());

    private final RateLimitConfig config;
    private final RateLimitStore store;
    private final ClientIp clientIp;
    private final InstantSource clock;
    private final RateLimitFilter filter;

    private RateLimiting(
            RateLimitConfig config, RateLimitStore store, InstantSource clock, boolean anonymousRegistration) {
        this.config = config;
        this.store = store;
        this.clock = clock;
        this.clientIp = new ClientIp(config.trustedProxies());
        this.filter = new RateLimitFilter(rules(anonymousRegistration));
    }

    /**
     * Creates the store and the endpoint limiters.
     *
     * @param defaultRedisUrl       {@code warden.redis.url}, used when the node names no Redis of its own
     * @param anonymousRegistration whether dynamic client registration is open to anonymous callers (it
     *                              lowers that endpoint's default limit to 1 per minute)
     */
    public static RateLimiting start(
            RateLimitConfig config, String defaultRedisUrl, boolean anonymousRegistration, InstantSource clock) {
        RateLimitStore store = switch (config.store()) {
            case MEMORY -> new MemoryRateLimitStore(clock);
            case REDIS -> {
                String url = config.redisUrl().orElse(defaultRedisUrl);
                RedisRateLimitStore redis =
                        new RedisRateLimitStore(url, config.redisKeyPrefix(), config.redisTimeout(), clock);
                if (!redis.ping()) {
                    LOG.warning("rate-limit store: Redis at " + RateLimitConfig.mask(url) + " does not answer yet; "
                            + "endpoints apply their fail mode until it does");
                }
                yield redis;
            }
        };
        return new RateLimiting(config, store, clock, anonymousRegistration);
    }

    private List<RateLimitFilter.Rule> rules(boolean anonymousRegistration) {
        List<RateLimitFilter.Rule> rules = new ArrayList<>();
        for (AuthEndpoint endpoint : AuthEndpoint.values()) {
            Optional<RateLimit> rule = config.ruleFor(endpoint, anonymousRegistration);
            if (rule.isEmpty()) {
                LOG.info("rate limit of " + endpoint.configName() + " is disabled by configuration");
                continue;
            }
            RateLimiter limiter = limiter(endpoint.configName())
                    .rule(rule.get())
                    .failMode(config.failModeFor(endpoint))
                    .build();
            for (String path : endpoint.paths()) {
                rules.add(new RateLimitFilter.Rule(endpoint.method(), path, limiter));
            }
        }
        return rules;
    }

    /** A limiter builder on this process's store, keyed by client IP under its proxy rules. */
    public RateLimiter.Builder limiter(String name) {
        return RateLimiter.builder(name).store(store).clientIp(clientIp).clock(clock);
    }

    /** The filter enforcing the endpoint registry; register it before authentication. */
    public RateLimitFilter filter() {
        return filter;
    }

    /** The client-IP rule ({@code warden.rate-limit.trusted-proxies}). */
    public ClientIp clientIp() {
        return clientIp;
    }

    /** The shared store. */
    public RateLimitStore store() {
        return store;
    }

    public RateLimitConfig config() {
        return config;
    }

    @Override
    public void close() {
        store.close();
    }
}
