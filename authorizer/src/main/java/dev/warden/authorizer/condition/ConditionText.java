package dev.warden.authorizer.condition;

import dev.warden.authorizer.domain.Condition;
import dev.warden.authorizer.domain.TimeWindow;
import java.time.DayOfWeek;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The one CEL expression a {@link Condition} compiles to: its {@code when} and each shorthand, each in
 * parentheses, joined by {@code &&}. The shorthands read {@code context.ip} and {@code context.time}:
 * <ul>
 *   <li>{@code allowedIps}: {@code (ipInCidr(context.ip, '10.0.0.0/8') || ...)};</li>
 *   <li>{@code timeWindows}: the local weekday ({@code getDayOfWeek}, 0 is Sunday) and minute of the day in the
 *       window's zone, any window;</li>
 *   <li>{@code validFrom}, {@code validUntil}: {@code context.time >= timestamp('...')}, {@code < timestamp('...')}.</li>
 * </ul>
 */
final class ConditionText {
    private ConditionText() {}

    static String of(Condition condition) {
        List<String> parts = new ArrayList<>();
        condition.when().ifPresent(parts::add);
        if (!condition.allowedIps().isEmpty()) {
            parts.add(condition.allowedIps().stream()
                    .map(cidr -> "ipInCidr(context.ip, " + literal(cidr) + ")")
                    .collect(Collectors.joining(" || ")));
        }
        if (!condition.timeWindows().isEmpty()) {
            parts.add(
                    condition.timeWindows().stream().map(ConditionText::window).collect(Collectors.joining(" || ")));
        }
        condition.validFrom().ifPresent(from -> parts.add("context.time >= " + timestamp(from)));
        condition.validUntil().ifPresent(until -> parts.add("context.time < " + timestamp(until)));
        return parts.stream().map(p -> "(" + p + ")").collect(Collectors.joining(" && "));
    }

    private static String window(TimeWindow w) {
        String zone = literal(w.zone().getId());
        String days = w.days().stream().map(d -> String.valueOf(celDay(d))).collect(Collectors.joining(", ", "[", "]"));
        String minute = "(context.time.getHours(" + zone + ") * 60 + context.time.getMinutes(" + zone + "))";
        int start = w.start().getHour() * 60 + w.start().getMinute();
        int end = w.end().getHour() * 60 + w.end().getMinute();
        String hours = end > start
                ? minute + " >= " + start + " && " + minute + " < " + end
                : "(" + minute + " >= " + start + " || " + minute + " < " + end + ")";
        return "(context.time.getDayOfWeek(" + zone + ") in " + days + " && " + hours + ")";
    }

    /** CEL's {@code getDayOfWeek}: 0 for Sunday to 6 for Saturday. */
    private static int celDay(DayOfWeek day) {
        return day.getValue() % 7;
    }

    private static String timestamp(Instant instant) {
        return "timestamp(" + literal(instant.toString()) + ")";
    }

    /** A CEL string literal; the texts given here (CIDRs, zone ids, instants) hold no quote or backslash. */
    private static String literal(String text) {
        if (text.indexOf('\'') >= 0 || text.indexOf('\\') >= 0) {
            throw new IllegalArgumentException("not a plain literal: " + text);
        }
        return "'" + text + "'";
    }
}
