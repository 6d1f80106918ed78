package dev.warden.authorizer.domain;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * When a permission applies: every part that is set must hold at decision time (docs/conditions.md).
 *
 * <p>{@code when} is a CEL expression over the decision's variables; the other parts are shorthands for common
 * cases and compile to the same kind of expression. This record only holds what was written; compiling and
 * evaluating are the {@code condition} package's job, and writing a condition that does not compile is refused
 * before any agent or delegation stores it.
 *
 * @param when        a CEL expression that must evaluate to {@code true}
 * @param allowedIps  CIDR ranges (IPv4 or IPv6) the caller's network address must fall in, any of them
 * @param timeWindows local days and hours the decision time must fall in, any of them
 * @param validFrom   the first instant the permission applies
 * @param validUntil  the instant from which it no longer applies
 */
public record Condition(
        Optional<String> when,
        List<String> allowedIps,
        List<TimeWindow> timeWindows,
        Optional<Instant> validFrom,
        Optional<Instant> validUntil) {

    public Condition {
        allowedIps = List.copyOf(allowedIps);
        timeWindows = List.copyOf(timeWindows);
        if (when.isEmpty()
                && allowedIps.isEmpty()
                && timeWindows.isEmpty()
                && validFrom.isEmpty()
                && validUntil.isEmpty()) {
            throw new IllegalArgumentException("a condition needs at least one part");
        }
        if (validFrom.isPresent() && validUntil.isPresent() && !validFrom.get().isBefore(validUntil.get())) {
            throw new IllegalArgumentException("validFrom must be before validUntil");
        }
    }

    /** A condition made of a CEL expression alone. */
    public static Condition when(String expression) {
        return new Condition(Optional.of(expression), List.of(), List.of(), Optional.empty(), Optional.empty());
    }
}
