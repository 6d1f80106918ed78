package dev.warden.pipeline.contract;

import java.util.Arrays;
import java.util.Optional;

/** An enum with a stable lower-case wire name, parsed strictly (exact, case-sensitive match). */
public interface WireEnum {
    /** The name used in JSON and in the database. */
    String wireName();

    /** The constant whose wire name is {@code value}, if any. */
    static <E extends Enum<E> & WireEnum> Optional<E> parse(Class<E> type, String value) {
        return Arrays.stream(type.getEnumConstants())
                .filter(e -> e.wireName().equals(value))
                .findFirst();
    }

    /** The accepted wire names, for error messages: {@code "a, b, c"}. */
    static <E extends Enum<E> & WireEnum> String choices(Class<E> type) {
        return String.join(
                ", ",
                Arrays.stream(type.getEnumConstants()).map(WireEnum::wireName).toList());
    }
}
