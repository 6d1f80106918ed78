package dev.warden.api.http;

import dev.warden.runtime.db.Keyset;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Cursor paging of the lists whose body the SPEC fixes as a JSON array ({@code GET /agents}, {@code /delegations},
 * {@code /webhooks}; D183). A caller that sends {@code limit} (1 to 200) or {@code cursor} gets one page, oldest
 * first like the whole list, and the next page's cursor in the {@code Warden-Next-Cursor} header and as a
 * {@code Link: <…>; rel="next"} (RFC 8288); the last page has neither. A caller that sends neither gets the whole
 * list, as before. Cursors are {@link ListCursor}s bound to the list and its filters.
 */
public final class ListPaging {
    /** The header naming the next page's cursor. */
    public static final String NEXT_CURSOR_HEADER = "Warden-Next-Cursor";

    public static final int MAX_LIMIT = 200;
    private static final int DEFAULT_LIMIT = 50;
    /** Rows read per trip when a filter applied after the query drops some. */
    private static final int MIN_CHUNK = 100;

    private ListPaging() {}

    /** A page asked for: at most {@code limit} items after {@code after} (from the start when empty). */
    public record Request(String list, int limit, Optional<Keyset> after) {}

    /** A page: its items and the position after which the next page begins, when there is one. */
    public record Page<T>(List<T> items, Optional<Keyset> next) {}

    /**
     * The page {@code req} asks for in the list {@code list} (its name and filters, so that a cursor of one list is
     * refused by another), or empty when it asks for the whole list (neither {@code limit} nor {@code cursor}).
     *
     * @throws dev.warden.api.errors.InvalidInputException naming {@code limit} or {@code cursor}
     */
    public static Optional<Request> requested(ServerRequest req, ListCursor cursors, String list) {
        Optional<Integer> limit = Params.query(req, "limit", ListPaging::limit);
        Optional<Keyset> after = after(req, cursors, list);
        if (limit.isEmpty() && after.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Request(list, limit.orElse(DEFAULT_LIMIT), after));
    }

    /**
     * The position the request's {@code cursor} names in {@code list}, or empty without one.
     *
     * @throws dev.warden.api.errors.InvalidInputException {@code bad_cursor} for a cursor not of this list
     */
    public static Optional<Keyset> after(ServerRequest req, ListCursor cursors, String list) {
        return Params.query(req, "cursor", c -> c).map(c -> cursors.decode(list, c));
    }

    /** Parses {@code limit}: a whole number from 1 to {@link #MAX_LIMIT}. */
    public static int limit(String value) {
        try {
            int limit = Integer.parseInt(value);
            if (limit >= 1 && limit <= MAX_LIMIT) {
                return limit;
            }
        } catch (NumberFormatException e) {
            // answered below, like a number out of range
        }
        throw new IllegalArgumentException("must be a whole number from 1 to " + MAX_LIMIT);
    }

    /**
     * One page read from a source ordered by ({@code createdAt}, {@code id}) ascending: {@code fetch(after, n)}
     * answers at most {@code n} rows strictly after {@code after}; rows {@code visible} rejects are skipped (and the
     * source read on until the page is full or the source ends), so a filter that cannot be written in SQL still
     * gives full pages and a cursor that never skips or repeats an item.
     */
    public static <T> Page<T> read(
            Request request,
            BiFunction<Optional<Keyset>, Integer, List<T>> fetch,
            Predicate<T> visible,
            Function<T, Keyset> position) {
        int chunk = Math.max(request.limit() + 1, MIN_CHUNK);
        List<T> found = new ArrayList<>(request.limit() + 1);
        Optional<Keyset> after = request.after();
        while (found.size() <= request.limit()) {
            List<T> rows = fetch.apply(after, chunk);
            for (T row : rows) {
                if (visible.test(row)) {
                    found.add(row);
                    if (found.size() > request.limit()) {
                        break;
                    }
                }
            }
            if (rows.size() < chunk) {
                break;
            }
            after = Optional.of(position.apply(rows.getLast()));
        }
        if (found.size() <= request.limit()) {
            return new Page<>(found, Optional.empty());
        }
        List<T> items = List.copyOf(found.subList(0, request.limit()));
        return new Page<>(items, Optional.of(position.apply(items.getLast())));
    }

    /**
     * Sets the next page's headers on {@code res}: {@code Warden-Next-Cursor} and a {@code Link} to the same
     * request with that cursor (nothing on the last page).
     */
    public static void linkNext(
            ServerRequest req, ServerResponse res, ListCursor cursors, Request request, Optional<Keyset> next) {
        if (next.isEmpty()) {
            return;
        }
        String cursor = cursors.encode(request.list(), next.get());
        StringBuilder target = new StringBuilder(req.path().absolute().rawPath()).append('?');
        for (String name : req.query().names()) {
            if (!name.equals("cursor")) {
                for (String value : req.query().all(name)) {
                    target.append(encode(name))
                            .append('=')
                            .append(encode(value))
                            .append('&');
                }
            }
        }
        target.append("cursor=").append(encode(cursor));
        res.header(NEXT_CURSOR_HEADER, cursor);
        res.header("Link", "<" + target + ">; rel=\"next\"");
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
