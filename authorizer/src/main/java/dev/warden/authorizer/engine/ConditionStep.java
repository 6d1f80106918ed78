package dev.warden.authorizer.engine;

import dev.warden.authorizer.domain.Condition;
import dev.warden.authorizer.domain.Permission;

/**
 * One condition a matching call must meet: the {@code constraints.condition} of one grant, owned by
 * {@link #origin()} (an agent's own permission, or a delegation).
 *
 * <p>A call allowed through an {@link EffectiveGrant} meets every step of {@link EffectiveGrant#conditions()}: its
 * own and those of each grant above it in the delegation chain, so a delegation only ever narrows.
 *
 * @param origin     who wrote the condition
 * @param permission the conditional grant; its condition is present
 */
public record ConditionStep(GrantOrigin origin, Permission permission) {
    public ConditionStep {
        if (permission.constraints().condition().isEmpty()) {
            throw new IllegalArgumentException("a condition step needs a condition");
        }
    }

    /** The condition to meet. */
    public Condition condition() {
        return permission.constraints().condition().orElseThrow();
    }

    /**
     * The grant that carries the condition, as a denial's audit entry names it: origin, resource and actions, for
     * example {@code delegation:dlg_1 mcp:github:* read,write}.
     */
    public String describe() {
        return origin.key() + " " + permission.resource() + " " + String.join(",", permission.actions());
    }
}
