package dev.warden.api.ratelimit;

import dev.warden.pipeline.contract.WireEnum;
import io.helidon.config.Config;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Node {@code warden.rate-limit} (SPEC Limits, block {@code rateLimit}). Every key is optional; the SPEC's
 * limits apply with no configuration.
 *
 * @param store          {@code memory} (default) or {@code redis}
 * @param redisUrl       the Redis of {@code store: redis}; empty means {@code warden.redis.url}
 * @param redisKeyPrefix prefix of every counter key in Redis, so deployments (and tests) sharing a Redis
 *                       stay apart
 * @param redisTimeout   connect and read timeout of one Redis round trip
 * @param trustedProxies reverse proxies whose forwarding headers are believed (CIDR list, default none)
 * @param endpoints      per-endpoint overrides of the {@link AuthEndpoint} defaults
 */
public record RateLimitConfig(
        StoreKind store,
        Optional<String> redisUrl,
        String redisKeyPrefix,
        Duration redisTimeout,
        List<Cidr> trustedProxies,
        Map<AuthEndpoint, EndpointOverride> endpoints) {

    public RateLimitConfig {
        trustedProxies = List.copyOf(trustedProxies);
        endpoints = endpoints.isEmpty() ? Map.of() : Map.copyOf(new EnumMap<>(endpoints));
        if (redisTimeout.isNegative() || redisTimeout.isZero()) {
            throw new IllegalArgumentException("warden.rate-limit.redis-timeout-ms must be positive");
        }
    }

    /**
     * Overrides for one endpoint; absent parts keep the default.
     *
     * @param limit         requests per window; a negative value disables the limit
     * @param windowSeconds the window in seconds
     * @param failMode      what to do when the shared store is down
     */
    public record EndpointOverride(Optional<Integer> limit, Optional<Long> windowSeconds, Optional<FailMode> failMode) {
        public EndpointOverride {
            if (limit.isPresent() && limit.get() == 0) {
                throw new IllegalArgumentException(
                        "a limit of 0 would refuse every request; use a negative " + "value to disable the limit");
            }
            if (windowSeconds.isPresent() && windowSeconds.get() < 1) {
                throw new IllegalArgumentException("a window must be at least 1 second");
            }
        }

        /** No override. */
        public static EndpointOverride none() {
            return new EndpointOverride(Optional.empty(), Optional.empty(), Optional.empty());
        }

        /** {@code limit} per {@code windowSeconds}. */
        public static EndpointOverride of(int limit, long windowSeconds) {
            return new EndpointOverride(Optional.of(limit), Optional.of(windowSeconds), Optional.empty());
        }
    }

    /** The rule in force for {@code endpoint}; empty when disabled by a negative limit. */
    public Optional<RateLimit> ruleFor(AuthEndpoint endpoint, boolean anonymousRegistration) {
        EndpointOverride o = endpoints.getOrDefault(endpoint, EndpointOverride.none());
        int limit = o.limit().orElse(endpoint.defaultLimit(anonymousRegistration));
        if (limit < 0) {
            return Optional.empty();
        }
        return Optional.of(RateLimit.perSeconds(limit, o.windowSeconds().orElse(AuthEndpoint.DEFAULT_WINDOW_SECONDS)));
    }

    /** The fail mode in force for {@code endpoint}. */
    public FailMode failModeFor(AuthEndpoint endpoint) {
        return endpoints
                .getOrDefault(endpoint, EndpointOverride.none())
                .failMode()
                .orElse(endpoint.defaultFailMode());
    }

    /** A builder holding every default. */
    public static Builder builder() {
        return new Builder();
    }

    /** Reads node {@code warden.rate-limit} ({@code node} is that node); missing keys keep their default. */
    public static RateLimitConfig from(Config node) {
        Builder b = builder();
        node.get("store")
                .asString()
                .ifPresent(s -> b.store(WireEnum.parse(StoreKind.class, s.strip())
                        .orElseThrow(() -> new IllegalArgumentException("warden.rate-limit.store: '" + s
                                + "' is not one of " + WireEnum.choices(StoreKind.class)))));
        node.get("redis-url").asString().filter(s -> !s.isBlank()).ifPresent(b::redisUrl);
        node.get("redis-key-prefix").asString().ifPresent(b::redisKeyPrefix);
        node.get("redis-timeout-ms").asLong().ifPresent(ms -> b.redisTimeout(Duration.ofMillis(ms)));
        node.get("trusted-proxies").asString().ifPresent(b::trustedProxies);
        for (AuthEndpoint endpoint : AuthEndpoint.values()) {
            Config e = node.get("endpoints." + endpoint.configName());
            String key = "warden.rate-limit.endpoints." + endpoint.configName();
            Optional<FailMode> mode = e.get("fail-mode")
                    .asString()
                    .map(s -> WireEnum.parse(FailMode.class, s.strip())
                            .orElseThrow(() -> new IllegalArgumentException(key + ".fail-mode: '" + s
                                    + "' is not one of " + WireEnum.choices(FailMode.class))));
            Optional<Integer> limit = e.get("limit").asInt().asOptional();
            Optional<Long> window = e.get("window").asLong().asOptional();
            if (limit.isPresent() || window.isPresent() || mode.isPresent()) {
                try {
                    b.endpoint(endpoint, new EndpointOverride(limit, window, mode));
                } catch (IllegalArgumentException ex) {
                    throw new IllegalArgumentException(key + ": " + ex.getMessage(), ex);
                }
            }
        }
        return b.build();
    }

    @Override
    public String toString() {
        return "RateLimitConfig[store=" + store.wireName() + ", redisUrl="
                + redisUrl.map(RateLimitConfig::mask).orElse("(warden.redis.url)") + ", redisKeyPrefix="
                + redisKeyPrefix + ", redisTimeout="
                + redisTimeout.toMillis() + "ms, trustedProxies=" + trustedProxies + ", endpoints=" + endpoints + "]";
    }

    /** {@code redis://user:secret@host} with the credentials masked. */
    public static String mask(String url) {
        return url.replaceFirst("//[^@/]*@", "//****@");
    }

    /** Mutable builder; every field starts at its documented default. */
    public static final class Builder {
        private StoreKind store = StoreKind.MEMORY;
        private Optional<String> redisUrl = Optional.empty();
        private String redisKeyPrefix = "warden:rl:";
        private Duration redisTimeout = Duration.ofMillis(250);
        private List<Cidr> trustedProxies = List.of();
        private final Map<AuthEndpoint, EndpointOverride> endpoints = new EnumMap<>(AuthEndpoint.class);

        private Builder() {}

        public Builder store(StoreKind store) {
            this.store = store;
            return this;
        }

        public Builder redisUrl(String url) {
            this.redisUrl = Optional.of(url);
            return this;
        }

        public Builder redisKeyPrefix(String prefix) {
            this.redisKeyPrefix = prefix;
            return this;
        }

        public Builder redisTimeout(Duration timeout) {
            this.redisTimeout = timeout;
            return this;
        }

        public Builder trustedProxies(List<Cidr> proxies) {
            this.trustedProxies = List.copyOf(proxies);
            return this;
        }

        /** A comma list of CIDR prefixes or addresses, e.g. {@code 10.0.0.0/8, 192.0.2.7}. */
        public Builder trustedProxies(String commaList) {
            List<Cidr> parsed = new ArrayList<>();
            for (String item : Arrays.stream(commaList.split(","))
                    .map(String::strip)
                    .filter(s -> !s.isEmpty())
                    .toList()) {
                try {
                    parsed.add(Cidr.parse(item));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("warden.rate-limit.trusted-proxies: " + e.getMessage(), e);
                }
            }
            return trustedProxies(parsed);
        }

        public Builder endpoint(AuthEndpoint endpoint, EndpointOverride override) {
            endpoints.put(endpoint, override);
            return this;
        }

        /** Shorthand: {@code limit} requests per {@code windowSeconds} on {@code endpoint}. */
        public Builder endpoint(AuthEndpoint endpoint, int limit, long windowSeconds) {
            return endpoint(endpoint, EndpointOverride.of(limit, windowSeconds));
        }

        public RateLimitConfig build() {
            return new RateLimitConfig(store, redisUrl, redisKeyPrefix, redisTimeout, trustedProxies, endpoints);
        }
    }
}
