package dev.warden.api.http;

import dev.warden.api.errors.InvalidInputException;
import dev.warden.pipeline.contract.WireEnum;
import io.helidon.webserver.http.ServerRequest;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Typed, validated path and query parameters; bad values become a 400 naming the parameter. Every value has passed
 * the {@link InputContract}'s text rule first (a {@code %00} is a 400, never a database error): path parameters
 * where their route was mounted ({@link DeclaredRules}), query values here.
 */
public final class Params {
    private Params() {}

    /** Path parameter {@code name} converted by {@code parser} (which throws IllegalArgumentException). */
    public static <T> T path(ServerRequest req, String name, Function<String, T> parser) {
        try {
            return parser.apply(req.path().pathParameters().get(name));
        } catch (IllegalArgumentException e) {
            throw InvalidInputException.field(name, e.getMessage());
        }
    }

    /**
     * Refuses a query parameter not in {@code names} with a 400 naming it: a misspelt filter, or a paging style the
     * list does not have ({@code page}, {@code offset}), would otherwise widen the answer without a word.
     */
    public static void only(ServerRequest req, Set<String> names) {
        for (String name : req.query().names()) {
            if (!names.contains(name)) {
                throw InvalidInputException.field(
                        InputContract.shown(name),
                        "is not a parameter of this operation (it takes: " + String.join(", ", new TreeSet<>(names))
                                + ")");
            }
        }
    }

    /** Optional query parameter {@code name} converted by {@code parser}; empty string counts as absent. */
    public static <T> Optional<T> query(ServerRequest req, String name, Function<String, T> parser) {
        Optional<String> raw =
                req.query().first(name).asOptional().filter(s -> !s.isEmpty()).map(v -> InputContract.text(name, v));
        try {
            return raw.map(parser);
        } catch (IllegalArgumentException e) {
            throw InvalidInputException.field(name, e.getMessage());
        }
    }

    /** Optional timestamp query parameter (ISO 8601 with offset, years 0001 to 9999). */
    public static Optional<Instant> queryInstant(ServerRequest req, String name) {
        return query(req, name, InputContract::timestamp);
    }

    /** Optional enum query parameter, by wire name. */
    public static <E extends Enum<E> & WireEnum> Optional<E> queryEnum(ServerRequest req, String name, Class<E> type) {
        return query(
                req,
                name,
                v -> WireEnum.parse(type, v)
                        .orElseThrow(() -> new IllegalArgumentException("must be one of: " + WireEnum.choices(type))));
    }
}
