package dev.warden.authorizer.domain;

import dev.warden.pipeline.contract.WireEnum;
import java.util.Locale;

/** What kind of agent an identity stands for (SPEC: Agent resource). */
public enum AgentType implements WireEnum {
    AUTONOMOUS,
    DELEGATED,
    SERVICE;

    @Override
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
