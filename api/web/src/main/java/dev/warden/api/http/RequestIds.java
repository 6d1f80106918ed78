package dev.warden.api.http;

import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/**
 * The id of each request, for matching a user's report to a log line: the caller's {@code X-Request-Id} when it is
 * a plain token (1 to 128 of {@code [A-Za-z0-9._:-]}), else a new {@code req_} id. It is echoed in the answer's
 * {@code X-Request-Id}, written in the access log and in the log line of an unexpected error.
 */
public final class RequestIds {
    /** The header, in and out. */
    public static final HeaderName HEADER = HeaderNames.create("X-Request-Id");

    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
    private static final String CONTEXT_KEY = "warden.request-id";

    private RequestIds() {}

    /** Gives {@code req} its id (the caller's, if plain, else a new one) and echoes it on {@code res}. */
    public static String assign(ServerRequest req, ServerResponse res) {
        String id = req.headers()
                .first(HEADER)
                .filter(v -> PLAIN.matcher(v).matches())
                .orElseGet(RequestIds::mint);
        req.context().register(CONTEXT_KEY, id);
        res.header(HEADER, id);
        return id;
    }

    /**
     * A new id: {@code req_} and 26 base-32 digits of 128 random bits. Not {@link dev.warden.authorizer.domain.Ids}:
     * a request id correlates, it grants nothing, so it is drawn from {@link ThreadLocalRandom} rather than from the
     * shared SecureRandom every audit id already waits on (one draw per request, on every hot path).
     */
    static String mint() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return "req_" + digits(random.nextLong()) + digits(random.nextLong());
    }

    private static String digits(long bits) {
        String s = Long.toUnsignedString(bits, 32);
        return "0".repeat(13 - s.length()) + s;
    }

    /** The id of {@code req}, once assigned. */
    public static Optional<String> of(ServerRequest req) {
        return req.context().get(CONTEXT_KEY, String.class);
    }
}
