package dev.warden.api.http;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.errors.FieldError;
import dev.warden.api.errors.InvalidInputException;
import dev.warden.pipeline.contract.Json;
import dev.warden.pipeline.contract.WireEnum;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;

/**
 * Typed, validating access to the fields of one JSON object. Every problem is collected as a
 * {@link FieldError} naming the field by its path; {@link #validate()} throws them all at once, so a
 * client learns every mistake in one round trip. Not thread-safe; one instance per request.
 */
public final class JsonInput {
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};

    private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);
    private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);

    private final ObjectNode node;
    private final String path;
    private final List<FieldError> errors;

    private JsonInput(ObjectNode node, String path, List<FieldError> errors) {
        this.node = node;
        this.path = path;
        this.errors = errors;
    }

    /** Wraps a request body; fields outside {@code allowed} are reported as unknown. */
    public static JsonInput of(ObjectNode body, Set<String> allowed) {
        JsonInput input = new JsonInput(body, "", new ArrayList<>());
        input.rejectUnknown(allowed);
        return input;
    }

    /** A nested object sharing this input's error list; fields outside {@code allowed} are unknown. */
    public JsonInput nested(ObjectNode child, String field, Set<String> allowed) {
        JsonInput input = new JsonInput(child, pathOf(field), errors);
        input.rejectUnknown(allowed);
        return input;
    }

    /** True when the field is present (even if {@code null}). */
    public boolean has(String field) {
        return node.has(field);
    }

    /** True when the field is present and {@code null}. */
    public boolean isNull(String field) {
        return node.has(field) && node.get(field).isNull();
    }

    /** The full path of {@code field} in the body, e.g. {@code permissions[2].actions}. */
    public String pathOf(String field) {
        return path.isEmpty() ? field : path + "." + field;
    }

    /** Records a problem with {@code field}. */
    public void error(String field, String message) {
        errors.add(new FieldError(pathOf(field), message));
    }

    /** Records a problem at an absolute path. */
    public void errorAt(String absolutePath, String message) {
        errors.add(new FieldError(absolutePath, message));
    }

    /** A required string of 1 to {@code maxLength} characters, not blank. */
    public Optional<String> requiredString(String field, int maxLength) {
        if (!node.has(field) || node.get(field).isNull()) {
            error(field, "is required");
            return Optional.empty();
        }
        return string(field, maxLength);
    }

    /** An optional string; {@code null} counts as absent. */
    public Optional<String> optionalString(String field, int maxLength) {
        if (!node.has(field) || node.get(field).isNull()) {
            return Optional.empty();
        }
        return string(field, maxLength);
    }

    private Optional<String> string(String field, int maxLength) {
        JsonNode value = node.get(field);
        if (!value.isTextual()) {
            error(field, "must be a string");
            return Optional.empty();
        }
        String text = value.textValue();
        if (text.isBlank()) {
            error(field, "must not be blank");
            return Optional.empty();
        }
        if (text.length() > maxLength) {
            error(field, "must be at most " + maxLength + " characters");
            return Optional.empty();
        }
        return Optional.of(text);
    }

    /** A string converted by {@code parser}, which throws {@link IllegalArgumentException} on bad input. */
    public <T> Optional<T> optionalValue(String field, int maxLength, Function<String, T> parser) {
        return optionalString(field, maxLength).flatMap(text -> convert(field, text, parser));
    }

    /** As {@link #optionalValue} but required. */
    public <T> Optional<T> requiredValue(String field, int maxLength, Function<String, T> parser) {
        return requiredString(field, maxLength).flatMap(text -> convert(field, text, parser));
    }

    private <T> Optional<T> convert(String field, String text, Function<String, T> parser) {
        try {
            return Optional.of(parser.apply(text));
        } catch (IllegalArgumentException e) {
            error(field, e.getMessage());
            return Optional.empty();
        }
    }

    /** A required enum given by its wire name. */
    public <E extends Enum<E> & WireEnum> Optional<E> requiredEnum(String field, Class<E> type) {
        return requiredString(field, 64).flatMap(text -> enumValue(field, text, type));
    }

    private <E extends Enum<E> & WireEnum> Optional<E> enumValue(String field, String text, Class<E> type) {
        Optional<E> value = WireEnum.parse(type, text);
        if (value.isEmpty()) {
            error(field, "must be one of: " + WireEnum.choices(type));
        }
        return value;
    }

    /** An optional ISO 8601 timestamp with offset ({@code 2026-01-01T00:00:00Z}), years 0001 to 9999. */
    public Optional<Instant> optionalInstant(String field) {
        return optionalValue(field, 64, InputContract::timestamp);
    }

    /**
     * An optional whole number from {@code min} to {@code max}; {@code 1e3} counts as whole, {@code 1.5}
     * does not, and nothing wraps ({@code 18446744073709551621} is refused, not read as 5).
     */
    public OptionalLong optionalLong(String field, long min, long max) {
        Optional<JsonNode> value = raw(field);
        if (value.isEmpty()) {
            return OptionalLong.empty();
        }
        JsonNode n = value.get();
        if (!n.isNumber() || !n.canConvertToExactIntegral() || !fitsLong(n) || n.asLong() < min || n.asLong() > max) {
            error(field, "must be a whole number from " + min + " to " + max);
            return OptionalLong.empty();
        }
        return OptionalLong.of(n.asLong());
    }

    private static boolean fitsLong(JsonNode n) {
        if (n.isIntegralNumber()) {
            return n.canConvertToLong();
        }
        BigDecimal exact = n.decimalValue();
        return exact.compareTo(LONG_MIN) >= 0 && exact.compareTo(LONG_MAX) <= 0;
    }

    /**
     * An optional number from {@code min} to {@code max} with at most {@code maxScale} decimal places (money:
     * a cost, a budget), exactly as written.
     */
    public Optional<BigDecimal> optionalDecimal(String field, BigDecimal min, BigDecimal max, int maxScale) {
        Optional<JsonNode> value = raw(field);
        if (value.isEmpty()) {
            return Optional.empty();
        }
        JsonNode n = value.get();
        BigDecimal d = n.isNumber() ? n.decimalValue() : null;
        if (d == null
                || d.compareTo(min) < 0
                || d.compareTo(max) > 0
                || d.stripTrailingZeros().scale() > maxScale) {
            error(
                    field,
                    "must be a number from " + min.toPlainString() + " to " + max.toPlainString() + " with at most "
                            + maxScale + " decimal places");
            return Optional.empty();
        }
        return Optional.of(d);
    }

    /** An optional JSON object, as JDK values, whose serialized size is at most {@code maxBytes}. */
    public Optional<Map<String, Object>> optionalObject(String field, int maxBytes) {
        if (!node.has(field) || node.get(field).isNull()) {
            return Optional.empty();
        }
        JsonNode value = node.get(field);
        if (!value.isObject()) {
            error(field, "must be a JSON object");
            return Optional.empty();
        }
        if (value.toString().length() > maxBytes) {
            error(field, "must be at most " + maxBytes + " bytes when serialized");
            return Optional.empty();
        }
        return Optional.of(Json.mapper().convertValue(value, MAP));
    }

    /** The elements of a required array, each checked to be an object; reports non-objects. */
    public Optional<List<ObjectNode>> requiredObjectArray(String field, int maxItems) {
        if (!node.has(field) || node.get(field).isNull()) {
            error(field, "is required");
            return Optional.empty();
        }
        return objectArray(field, maxItems);
    }

    /** As {@link #requiredObjectArray} but optional. */
    public Optional<List<ObjectNode>> optionalObjectArray(String field, int maxItems) {
        if (!node.has(field) || node.get(field).isNull()) {
            return Optional.empty();
        }
        return objectArray(field, maxItems);
    }

    private Optional<List<ObjectNode>> objectArray(String field, int maxItems) {
        JsonNode value = node.get(field);
        if (!value.isArray()) {
            error(field, "must be an array");
            return Optional.empty();
        }
        if (value.size() > maxItems) {
            error(field, "must have at most " + maxItems + " items");
            return Optional.empty();
        }
        List<ObjectNode> items = new ArrayList<>(value.size());
        for (int i = 0; i < value.size(); i++) {
            if (value.get(i) instanceof ObjectNode item) {
                items.add(item);
            } else {
                error(field + "[" + i + "]", "must be a JSON object");
            }
        }
        return Optional.of(items);
    }

    /** The raw node of a field, if present and not {@code null}. */
    public Optional<JsonNode> raw(String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? Optional.empty() : Optional.of(value);
    }

    /** Throws every collected error as one 400, if there are any. */
    public void validate() {
        if (!errors.isEmpty()) {
            throw new InvalidInputException(errors);
        }
    }

    /** True when no error has been collected so far. */
    public boolean isValid() {
        return errors.isEmpty();
    }

    private void rejectUnknown(Set<String> allowed) {
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!allowed.contains(name)) {
                error(name, "is not a known field");
            }
        }
    }
}
