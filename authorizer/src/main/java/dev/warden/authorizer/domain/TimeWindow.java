package dev.warden.authorizer.domain;

import java.time.DayOfWeek;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * Local days and hours in a time zone: a time falls in the window when, read in {@code zone}, its day is one of
 * {@code days} and its time of day is at or after {@code start} and before {@code end}. When {@code end} is not
 * after {@code start} the hours wrap past midnight (22:00 to 06:00); the day is still the local day of the time.
 */
public record TimeWindow(Set<DayOfWeek> days, LocalTime start, LocalTime end, ZoneId zone) {
    public TimeWindow {
        if (days.isEmpty()) {
            throw new IllegalArgumentException("a time window needs at least one day");
        }
        // An EnumSet keeps the days in week order, so equal windows print alike (the engine orders by that text).
        days = Collections.unmodifiableSet(EnumSet.copyOf(days));
        if (start.equals(end)) {
            throw new IllegalArgumentException("a time window's start and end must differ");
        }
    }
}
