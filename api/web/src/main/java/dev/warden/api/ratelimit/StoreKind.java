package dev.warden.api.ratelimit;

import dev.warden.pipeline.contract.WireEnum;

/** Where a limiter keeps its counters ({@code warden.rate-limit.store}). */
public enum StoreKind implements WireEnum {
    /** In this process (the default): exact per instance, not shared. */
    MEMORY("memory"),
    /** In Redis: shared by every instance on the same Redis and key prefix. */
    REDIS("redis");

    private final String wireName;

    StoreKind(String wireName) {
        this.wireName = wireName;
    }

    @Override
    public String wireName() {
        return wireName;
    }
}
