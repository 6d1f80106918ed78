package dev.warden.authorizer.engine;

import dev.warden.authorizer.domain.Permission;

/**
 * One hourly call budget a matching call must consume: the {@code maxCallsPerHour} of one grant, owned by
 * {@link #origin()} (an agent's own permission, or a delegation).
 *
 * <p>A call allowed through an {@link EffectiveGrant} consumes one unit from every step of
 * {@link EffectiveGrant#constraints()}: its own and those of each grant above it in the delegation chain.
 *
 * @param origin     who owns the grant, and so whose budget is consumed
 * @param permission the constrained grant; its {@code maxCallsPerHour} is present
 */
public record ConstrainedStep(GrantOrigin origin, Permission permission) {
    public ConstrainedStep {
        if (permission.constraints().maxCallsPerHour().isEmpty()) {
            throw new IllegalArgumentException("a constrained step needs maxCallsPerHour");
        }
    }

    /** The number of calls this grant allows per fixed UTC clock hour. */
    public long maxCallsPerHour() {
        return permission.constraints().maxCallsPerHour().getAsLong();
    }

    /**
     * A stable name for this step's counter: equal for the same origin, resource and action set,
     * independent of the limit (changing the limit keeps the count) and of the order actions were listed in.
     * Computed on each call.
     */
    public String counterKey() {
        return GrantKeys.of(origin, permission);
    }
}
