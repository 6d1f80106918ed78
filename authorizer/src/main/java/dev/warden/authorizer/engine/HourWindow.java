package dev.warden.authorizer.engine;

import java.time.Instant;

/**
 * The window of the per-agent call budgets ({@code maxCallsPerHour}): the fixed clock hour in UTC (SPEC Limits:
 * the counter resets at the top of each clock hour). Pure.
 */
public final class HourWindow {
    private HourWindow() {}

    /** The hour {@code now} falls in, as hours since the epoch (the key of the hour's counters). */
    public static long hourOf(Instant now) {
        return Math.floorDiv(now.getEpochSecond(), 3600);
    }

    /** Whole seconds from {@code now} to the next hour, when every budget is full again (at least 1). */
    public static long secondsUntilNextHour(Instant now) {
        return Math.max(1, (hourOf(now) + 1) * 3600 - now.getEpochSecond());
    }
}
