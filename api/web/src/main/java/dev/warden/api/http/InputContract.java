package dev.warden.api.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.api.errors.FieldError;
import dev.warden.api.errors.InvalidInputException;
import dev.warden.pipeline.contract.CleanText;
import java.math.BigDecimal;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The limits every value passes at the edge, before anything is stored or produced (docs/errors.md, "What
 * the edge refuses"). One place, applied to whole request bodies (free-form objects included: {@code metadata},
 * {@code arguments}, webhook and cost fields), to query values and to timestamps:
 *
 * <ul>
 *   <li>text (values and object keys): no U+0000, no lone surrogate ({@link CleanText});</li>
 *   <li>integers: within the signed 64-bit range; they never wrap;</li>
 *   <li>other numbers: finite doubles that do not underflow to zero ({@code 1e400} and {@code 1e-400} are
 *       refused), at most {@value dev.warden.pipeline.contract.Json#REQUEST_MAX_NUMBER_CHARS} characters as
 *       written (the request reader enforces that);</li>
 *   <li>timestamps: ISO 8601 with a zone offset, years 0001 to 9999.</li>
 * </ul>
 *
 * Field-specific bounds (a count of at least 0, a cost of at most 1,000,000) are checked by the routes on top.
 * Thread-safe; stateless.
 */
public final class InputContract {
    /** The earliest timestamp accepted anywhere. */
    public static final Instant EARLIEST = Instant.parse("0001-01-01T00:00:00Z");
    /** The latest timestamp accepted anywhere. */
    public static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999Z");
    /** Most problems reported for one body (the rest are summarised by the count). */
    static final int MAX_REPORTED = 20;

    private static final String TIMESTAMP_FORM =
            "must be an ISO 8601 timestamp with a zone offset between years 0001 and 9999, e.g. 2026-01-01T00:00:00Z";

    private InputContract() {}

    /** Every violation in {@code body}, by path ({@code metadata.n}, {@code permissions[0].actions[1]}). */
    public static List<FieldError> check(JsonNode body) {
        List<FieldError> errors = new ArrayList<>();
        walk(body, "", errors, Set.of());
        return errors;
    }

    /** As {@link #check} but leaves the text of the named top-level fields to the route (sign-in judges its own). */
    public static List<FieldError> checkExcept(JsonNode body, Set<String> routeJudgedText) {
        List<FieldError> errors = new ArrayList<>();
        walk(body, "", errors, routeJudgedText);
        return errors;
    }

    private static void walk(JsonNode node, String path, List<FieldError> errors, Set<String> skipText) {
        if (errors.size() >= MAX_REPORTED) {
            return;
        }
        if (node.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext(); ) {
                Map.Entry<String, JsonNode> field = fields.next();
                String child = path.isEmpty() ? shown(field.getKey()) : path + "." + shown(field.getKey());
                Optional<String> keyProblem = CleanText.problem(field.getKey());
                if (keyProblem.isPresent()) {
                    errors.add(new FieldError(child, "key " + keyProblem.get()));
                    continue;
                }
                if (path.isEmpty()
                        && skipText.contains(field.getKey())
                        && field.getValue().isTextual()) {
                    continue;
                }
                walk(field.getValue(), child, errors, Set.of());
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                walk(node.get(i), path + "[" + i + "]", errors, Set.of());
            }
        } else if (node.isTextual()) {
            CleanText.problem(node.textValue()).ifPresent(p -> errors.add(new FieldError(path, p)));
        } else if (node.isNumber()) {
            numberProblem(node).ifPresent(p -> errors.add(new FieldError(path, p)));
        }
    }

    /** Why a JSON number may not enter, or empty when it may. */
    public static Optional<String> numberProblem(JsonNode number) {
        if (number.isBigInteger() && !number.canConvertToLong()) {
            return Optional.of("must be an integer from " + Long.MIN_VALUE + " to " + Long.MAX_VALUE);
        }
        if (number.isIntegralNumber()) {
            return Optional.empty();
        }
        BigDecimal exact = number.decimalValue();
        double approx = number.isBigDecimal() ? exact.doubleValue() : number.doubleValue();
        if (Double.isNaN(approx) || Double.isInfinite(approx)) {
            return Optional.of("must be a finite number of magnitude at most " + Double.MAX_VALUE);
        }
        if (approx == 0 && exact.signum() != 0) {
            return Optional.of("must be 0 or of magnitude at least " + Double.MIN_VALUE);
        }
        return Optional.empty();
    }

    /**
     * Parses a timestamp from a request.
     *
     * @throws IllegalArgumentException naming the accepted form, for text that is not one or a year out of range
     */
    public static Instant timestamp(String text) {
        Instant instant;
        try {
            instant = OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeException | ArithmeticException e) {
            throw new IllegalArgumentException(TIMESTAMP_FORM);
        }
        if (instant.isBefore(EARLIEST) || instant.isAfter(LATEST)) {
            throw new IllegalArgumentException(TIMESTAMP_FORM);
        }
        return instant;
    }

    /**
     * Checks one query or header value as text.
     *
     * @throws InvalidInputException naming {@code name} when it may not enter
     */
    public static String text(String name, String value) {
        Optional<String> problem = CleanText.problem(value);
        if (problem.isPresent()) {
            throw InvalidInputException.field(name, problem.get());
        }
        return value;
    }

    /** A field name as it may appear in an error body: refused characters replaced, at most 100 characters. */
    static String shown(String name) {
        String clean = CleanText.scrub(name);
        if (clean.length() <= 100) {
            return clean;
        }
        int cut = Character.isHighSurrogate(clean.charAt(99)) ? 99 : 100;
        return clean.substring(0, cut) + "…";
    }
}
