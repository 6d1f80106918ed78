package dev.warden.api.webhooks;

import dev.warden.pipeline.contract.WireEnum;

/** Whether an endpoint receives deliveries. */
public enum WebhookStatus implements WireEnum {
    /** Receives deliveries. */
    ACTIVE("active"),
    /** Its receiver answered 410 Gone; receives nothing more. Permanent (delete it and create a new one). */
    DISABLED("disabled");

    private final String wireName;

    WebhookStatus(String wireName) {
        this.wireName = wireName;
    }

    @Override
    public String wireName() {
        return wireName;
    }
}
