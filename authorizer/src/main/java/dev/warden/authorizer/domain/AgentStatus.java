package dev.warden.authorizer.domain;

import dev.warden.pipeline.contract.WireEnum;
import java.util.Locale;

/**
 * The status of an agent as clients see it.
 *
 * <ul>
 *   <li>{@link #ACTIVE}: may authenticate and be authorized.</li>
 *   <li>{@link #SUSPENDED}: temporarily barred; {@code resume} makes it active again.</li>
 *   <li>{@link #REVOKED}: permanently barred; no operation leads out of it.</li>
 *   <li>{@link #EXPIRED}: derived, never stored: an active or suspended agent whose {@code expiresAt} has
 *       passed. Extending {@code expiresAt} makes it what it was before.</li>
 * </ul>
 */
public enum AgentStatus implements WireEnum {
    ACTIVE,
    SUSPENDED,
    REVOKED,
    EXPIRED;

    @Override
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
