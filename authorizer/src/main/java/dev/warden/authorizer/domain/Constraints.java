package dev.warden.authorizer.domain;

import java.util.OptionalLong;

/**
 * Limits attached to a permission. The only constraint today is {@code maxCallsPerHour}: how many calls
 * the grant allows per agent in a fixed UTC clock hour.
 */
public record Constraints(OptionalLong maxCallsPerHour) {
    /** No constraint at all. */
    public static final Constraints NONE = new Constraints(OptionalLong.empty());

    public Constraints {
        if (maxCallsPerHour.isPresent() && maxCallsPerHour.getAsLong() < 1) {
            throw new IllegalArgumentException("maxCallsPerHour must be at least 1");
        }
    }

    /** A constraint of at most {@code calls} calls per clock hour. */
    public static Constraints maxCallsPerHour(long calls) {
        return new Constraints(OptionalLong.of(calls));
    }

    /** True when no constraint is set. */
    public boolean isEmpty() {
        return maxCallsPerHour.isEmpty();
    }
}
