package dev.warden.api.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerResponse;
import java.io.UncheckedIOException;

/** Writes JSON responses. */
public final class Responses {
    private Responses() {}

    /** Sends {@code body} as {@code application/json} with {@code status}; responses are never cached. */
    public static void json(ServerResponse res, Status status, JsonNode body) {
        json(res, status, body, "no-store");
    }

    /** Sends {@code body} as {@code application/json} with {@code status} and {@code Cache-Control: cacheControl}. */
    public static void json(ServerResponse res, Status status, JsonNode body, String cacheControl) {
        try {
            byte[] bytes = Json.mapper().writeValueAsBytes(body);
            res.status(status);
            res.header(HeaderValues.CONTENT_TYPE_JSON);
            res.header(HeaderNames.CACHE_CONTROL, cacheControl);
            res.send(bytes);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sends 204 No Content. */
    public static void noContent(ServerResponse res) {
        res.status(Status.NO_CONTENT_204).send();
    }
}
