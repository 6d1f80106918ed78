package dev.warden.api.ratelimit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerResponse;
import java.io.UncheckedIOException;

/**
 * The SPEC's 429 answer, the same for every source (auth endpoints, middleware): {@code application/json}
 * body {@code {"error": {"code": "RATE_LIMIT_EXCEEDED", "message", "details": {"limit", "window",
 * "retryAfter"}}}} and header {@code Retry-After} with the seconds until a request will be admitted again.
 */
public final class RateLimitResponses {
    /** The {@code error.code} of every 429. */
    public static final String CODE = "RATE_LIMIT_EXCEEDED";

    private RateLimitResponses() {}

    /** The 429 body for a rejection. */
    public static ObjectNode body(Decision decision) {
        long retryAfter = decision.retryAfterSeconds();
        ObjectNode root = Json.mapper().createObjectNode();
        ObjectNode error = root.putObject("error")
                .put("code", CODE)
                .put(
                        "message",
                        "Too many requests. Try again in " + retryAfter + (retryAfter == 1 ? " second." : " seconds."));
        error.putObject("details")
                .put("limit", decision.rule().limit())
                .put("window", decision.rule().windowSeconds())
                .put("retryAfter", retryAfter);
        return root;
    }

    /** Sends the 429 for {@code decision} (a rejection). */
    public static void send(ServerResponse res, Decision decision) {
        try {
            byte[] bytes = Json.mapper().writeValueAsBytes(body(decision));
            res.status(Status.TOO_MANY_REQUESTS_429);
            res.header(HeaderValues.CONTENT_TYPE_JSON);
            res.header(HeaderNames.RETRY_AFTER, Long.toString(decision.retryAfterSeconds()));
            res.header(HeaderNames.CACHE_CONTROL, "no-store");
            res.send(bytes);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
