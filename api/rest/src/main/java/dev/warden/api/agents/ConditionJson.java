package dev.warden.api.agents;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.http.JsonInput;
import dev.warden.authorizer.condition.Cidr;
import dev.warden.authorizer.condition.Conditions;
import dev.warden.authorizer.domain.Condition;
import dev.warden.authorizer.domain.TimeWindow;
import dev.warden.pipeline.contract.Json;
import java.time.DateTimeException;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The condition fields of a permission's {@code constraints} (docs/conditions.md): {@code when} (CEL),
 * {@code allowedIps}, {@code timeWindows}, {@code validFrom}, {@code validUntil}. Parsing compiles {@code when}, so a
 * bad expression is a 400 naming the field and the position.
 */
final class ConditionJson {
    /** The fields of {@code constraints} this class reads. */
    static final Set<String> FIELDS = Set.of("when", "allowedIps", "timeWindows", "validFrom", "validUntil");
    /** Most CIDR ranges in {@code allowedIps}. */
    static final int MAX_RANGES = 100;
    /** Most windows in {@code timeWindows}. */
    static final int MAX_WINDOWS = 20;

    private static final Set<String> WINDOW_FIELDS = Set.of("days", "start", "end", "timeZone");
    private static final Pattern HOUR_MINUTE = Pattern.compile("([01]\\d|2[0-3]):[0-5]\\d");
    private static final List<String> DAY_NAMES = List.of("mon", "tue", "wed", "thu", "fri", "sat", "sun");

    private ConditionJson() {}

    /** The condition written in {@code c} (a permission's {@code constraints}); empty when it has none or errors. */
    static Optional<Condition> parse(JsonInput c) {
        Optional<String> when = c.optionalString("when", Conditions.MAX_EXPRESSION_LENGTH);
        when.flatMap(Conditions.standard()::problem).ifPresent(problem -> c.error("when", problem));
        List<String> ranges = ranges(c);
        List<TimeWindow> windows = windows(c);
        Optional<Instant> from = c.optionalInstant("validFrom");
        Optional<Instant> until = c.optionalInstant("validUntil");
        if (from.isPresent() && until.isPresent() && !from.get().isBefore(until.get())) {
            c.error("validUntil", "must be after validFrom");
        }
        if (!c.isValid()
                || (when.isEmpty() && ranges.isEmpty() && windows.isEmpty() && from.isEmpty() && until.isEmpty())) {
            return Optional.empty();
        }
        return Optional.of(new Condition(when, ranges, windows, from, until));
    }

    private static List<String> ranges(JsonInput c) {
        Optional<JsonNode> raw = c.raw("allowedIps");
        if (raw.isEmpty()) {
            return List.of();
        }
        if (!raw.get().isArray() || raw.get().isEmpty() || raw.get().size() > MAX_RANGES) {
            c.error("allowedIps", "must be an array of 1 to " + MAX_RANGES + " CIDR ranges");
            return List.of();
        }
        List<String> ranges = new ArrayList<>();
        for (int i = 0; i < raw.get().size(); i++) {
            JsonNode item = raw.get().get(i);
            String field = "allowedIps[" + i + "]";
            if (!item.isTextual() || item.textValue().length() > 64) {
                c.error(field, "must be a CIDR range of at most 64 characters");
                continue;
            }
            try {
                Cidr.parse(item.textValue());
                ranges.add(item.textValue());
            } catch (IllegalArgumentException e) {
                c.error(field, e.getMessage());
            }
        }
        return ranges;
    }

    private static List<TimeWindow> windows(JsonInput c) {
        Optional<List<ObjectNode>> items = c.optionalObjectArray("timeWindows", MAX_WINDOWS);
        if (items.isEmpty()) {
            return List.of();
        }
        if (items.get().isEmpty()) {
            c.error("timeWindows", "must not be empty");
        }
        List<TimeWindow> windows = new ArrayList<>();
        for (int i = 0; i < items.get().size(); i++) {
            JsonInput w = c.nested(items.get().get(i), "timeWindows[" + i + "]", WINDOW_FIELDS);
            Set<DayOfWeek> days = days(w);
            Optional<LocalTime> start = w.requiredValue("start", 5, ConditionJson::hourMinute);
            Optional<LocalTime> end = w.requiredValue("end", 5, ConditionJson::hourMinute);
            Optional<ZoneId> zone = w.requiredValue("timeZone", 64, ConditionJson::zone);
            if (start.isPresent() && start.equals(end)) {
                w.error("end", "must differ from start");
            }
            if (!days.isEmpty() && start.isPresent() && end.isPresent() && zone.isPresent() && !start.equals(end)) {
                windows.add(new TimeWindow(days, start.get(), end.get(), zone.get()));
            }
        }
        return windows;
    }

    private static Set<DayOfWeek> days(JsonInput w) {
        Optional<JsonNode> raw = w.raw("days");
        String problem = "must be a non-empty array of day names (" + String.join(", ", DAY_NAMES) + ")";
        if (raw.isEmpty()
                || !raw.get().isArray()
                || raw.get().isEmpty()
                || raw.get().size() > 7) {
            w.error("days", problem);
            return Set.of();
        }
        Set<DayOfWeek> days = EnumSet.noneOf(DayOfWeek.class);
        for (JsonNode day : raw.get()) {
            int index = day.isTextual() ? DAY_NAMES.indexOf(day.textValue().toLowerCase(Locale.ROOT)) : -1;
            if (index < 0) {
                w.error("days", problem);
                return Set.of();
            }
            days.add(DayOfWeek.of(index + 1));
        }
        return days;
    }

    private static LocalTime hourMinute(String text) {
        if (!HOUR_MINUTE.matcher(text).matches()) {
            throw new IllegalArgumentException(
                    "must be a time of day, HH:MM from 00:00 to 23:59 (an end of 00:00 is midnight)");
        }
        return LocalTime.parse(text);
    }

    private static ZoneId zone(String text) {
        try {
            return ZoneId.of(text);
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("must be an IANA time zone such as Europe/Berlin or UTC");
        }
    }

    /** Writes {@code condition}'s fields into {@code constraints}. */
    static void render(Condition condition, ObjectNode constraints) {
        condition.when().ifPresent(w -> constraints.put("when", w));
        if (!condition.allowedIps().isEmpty()) {
            ArrayNode ranges = constraints.putArray("allowedIps");
            condition.allowedIps().forEach(ranges::add);
        }
        if (!condition.timeWindows().isEmpty()) {
            ArrayNode windows = constraints.putArray("timeWindows");
            for (TimeWindow w : condition.timeWindows()) {
                ObjectNode node = windows.addObject();
                ArrayNode days = node.putArray("days");
                w.days().forEach(d -> days.add(DAY_NAMES.get(d.getValue() - 1)));
                node.put("start", text(w.start()));
                node.put("end", text(w.end()));
                node.put("timeZone", w.zone().getId());
            }
        }
        condition.validFrom().ifPresent(t -> constraints.put("validFrom", Json.timestamp(t)));
        condition.validUntil().ifPresent(t -> constraints.put("validUntil", Json.timestamp(t)));
    }

    /** Reads a condition written by {@link #render} (trusted input: the database); empty when it has none. */
    static Optional<Condition> fromStored(JsonNode constraints) {
        Optional<String> when = Optional.ofNullable(constraints.path("when").textValue());
        List<String> ranges = new ArrayList<>();
        constraints.path("allowedIps").forEach(r -> ranges.add(r.textValue()));
        List<TimeWindow> windows = new ArrayList<>();
        for (JsonNode w : constraints.path("timeWindows")) {
            Set<DayOfWeek> days = EnumSet.noneOf(DayOfWeek.class);
            w.path("days").forEach(d -> days.add(DayOfWeek.of(DAY_NAMES.indexOf(d.textValue()) + 1)));
            windows.add(new TimeWindow(
                    days,
                    hourMinute(w.path("start").textValue()),
                    hourMinute(w.path("end").textValue()),
                    ZoneId.of(w.path("timeZone").textValue())));
        }
        Optional<Instant> from = instant(constraints.path("validFrom"));
        Optional<Instant> until = instant(constraints.path("validUntil"));
        if (when.isEmpty() && ranges.isEmpty() && windows.isEmpty() && from.isEmpty() && until.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Condition(when, ranges, windows, from, until));
    }

    private static Optional<Instant> instant(JsonNode node) {
        try {
            return node.isTextual() ? Optional.of(Instant.parse(node.textValue())) : Optional.empty();
        } catch (DateTimeParseException e) {
            throw new IllegalStateException("stored condition has a bad instant: " + node.textValue(), e);
        }
    }

    private static String text(LocalTime time) {
        return String.format(Locale.ROOT, "%02d:%02d", time.getHour(), time.getMinute());
    }
}
