package dev.warden.api.ratelimit;

import dev.warden.pipeline.contract.WireEnum;

/** What a limiter does with a request when its store is unavailable (Redis down). */
public enum FailMode implements WireEnum {
    /** Admit the request unlimited; availability wins over protection. */
    OPEN("open"),
    /** Refuse the request with 503 {@code unavailable} and {@code Retry-After}; protection wins. */
    CLOSED("closed");

    private final String wireName;

    FailMode(String wireName) {
        this.wireName = wireName;
    }

    @Override
    public String wireName() {
        return wireName;
    }
}
