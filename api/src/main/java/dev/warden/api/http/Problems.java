package dev.warden.api.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.nio.charset.StandardCharsets;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Renders failures as RFC 9457 problem details with Warden's extra {@code code} member:
 * {@code {"type","title","status","code","detail","instance","errors"?}}.
 */
public final class Problems {
    /** The media type of every error body except the SPEC's 429 and OAuth's RFC 6749 errors. */
    public static final String MEDIA_TYPE = "application/problem+json";

    private static final Logger LOG = Logger.getLogger(Problems.class.getName());

    private Problems() {
    }

    /** Error handler for {@link ApiException}: renders it. */
    public static void handle(ServerRequest req, ServerResponse res, ApiException e) {
        send(req, res, e);
    }

    /** Error handler of last resort: logs the cause and answers a 500 without leaking it. */
    public static void handleUnexpected(ServerRequest req, ServerResponse res, Throwable e) {
        LOG.log(Level.SEVERE, "unhandled error on " + req.prologue().method().text() + " " + req.path().path(), e);
        send(req, res, new ApiException(ErrorCode.INTERNAL, "an unexpected error occurred; it has been logged"));
    }

    /** Writes {@code e} to {@code res}. */
    public static void send(ServerRequest req, ServerResponse res, ApiException e) {
        if (res.isSent()) {
            return;
        }
        e.headers().forEach((name, value) -> res.header(HeaderNames.create(name), value));
        res.status(Status.create(e.code().status()));
        res.header(HeaderNames.CONTENT_TYPE, MEDIA_TYPE);
        res.send(body(e, req.prologue().uriPath().path()));
    }

    static byte[] body(ApiException e, String instance) {
        ObjectNode node = Json.mapper().createObjectNode()
                .put("type", "urn:warden:problem:" + e.code().code())
                .put("title", e.code().title())
                .put("status", e.code().status())
                .put("code", e.code().code());
        e.detail().ifPresent(d -> node.put("detail", d));
        node.put("instance", instance);
        if (!e.errors().isEmpty()) {
            ArrayNode errors = node.putArray("errors");
            e.errors().forEach(fe -> errors.addObject().put("field", fe.field()).put("message", fe.message()));
        }
        try {
            return Json.mapper().writeValueAsBytes(node);
        } catch (JsonProcessingException ex) {
            return ("{\"status\":" + e.code().status() + "}").getBytes(StandardCharsets.UTF_8);
        }
    }
}
