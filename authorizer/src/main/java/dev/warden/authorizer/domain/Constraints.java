package dev.warden.authorizer.domain;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * Limits attached to a permission (docs/authorization.md, docs/conditions.md).
 *
 * @param maxCallsPerHour how many calls the grant allows per agent in a fixed UTC clock hour
 * @param condition       when the grant applies at all: a CEL expression and its shorthands
 * @param approval        whether a person must approve each matching call first (docs/approvals.md)
 */
public record Constraints(
        OptionalLong maxCallsPerHour, Optional<Condition> condition, Optional<ApprovalRule> approval) {
    /** No constraint at all. */
    public static final Constraints NONE = new Constraints(OptionalLong.empty(), Optional.empty(), Optional.empty());

    public Constraints {
        if (maxCallsPerHour.isPresent() && maxCallsPerHour.getAsLong() < 1) {
            throw new IllegalArgumentException("maxCallsPerHour must be at least 1");
        }
    }

    /** A budget and a condition, no approval. */
    public Constraints(OptionalLong maxCallsPerHour, Optional<Condition> condition) {
        this(maxCallsPerHour, condition, Optional.empty());
    }

    /** A constraint of at most {@code calls} calls per clock hour. */
    public static Constraints maxCallsPerHour(long calls) {
        return new Constraints(OptionalLong.of(calls), Optional.empty());
    }

    /** A condition and nothing else. */
    public static Constraints condition(Condition condition) {
        return new Constraints(OptionalLong.empty(), Optional.of(condition));
    }

    /** An approval requirement and nothing else. */
    public static Constraints approval(ApprovalRule rule) {
        return new Constraints(OptionalLong.empty(), Optional.empty(), Optional.of(rule));
    }

    /** True when no constraint is set. */
    public boolean isEmpty() {
        return maxCallsPerHour.isEmpty() && condition.isEmpty() && approval.isEmpty();
    }
}
