package dev.warden.api.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.FieldError;
import dev.warden.api.errors.InvalidInputException;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.HttpMediaType;
import io.helidon.webserver.http.ServerRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Reads JSON request bodies safely: content type checked (415, also when it does not parse), size bounded
 * before parsing (413), malformed JSON (invalid UTF-8, duplicate keys, nesting or numbers beyond the request
 * limits) answered with a 400 that says where it broke, and every value held to the {@link InputContract}
 * (400 naming each field) before a route sees it. Never a 500.
 */
public final class JsonRequests {
    private JsonRequests() {
    }

    /**
     * Reads the request body as a JSON object of at most {@code maxBytes} bytes.
     *
     * @throws InvalidInputException on bad input
     */
    public static ObjectNode readObject(ServerRequest req, long maxBytes) {
        return readObject(req, maxBytes, Set.of());
    }

    /**
     * As {@link #readObject(ServerRequest, long)}, but the text of the named top-level fields is left to the
     * route (sign-in answers any unusable username with its uniform 401, not a 400 that would tell it apart).
     */
    public static ObjectNode readObject(ServerRequest req, long maxBytes, Set<String> routeJudgedText) {
        requireJsonContentType(req);
        byte[] body = readBounded(req, maxBytes);
        if (body.length == 0) {
            throw InvalidInputException.field("body", "a JSON object is required");
        }
        JsonNode node = parse(body);
        if (!(node instanceof ObjectNode object)) {
            throw InvalidInputException.field("body", "must be a JSON object");
        }
        List<FieldError> errors = InputContract.checkExcept(object, routeJudgedText);
        if (!errors.isEmpty()) {
            throw new InvalidInputException(errors);
        }
        return object;
    }

    private static void requireJsonContentType(ServerRequest req) {
        Optional<HttpMediaType> type;
        try {
            type = req.headers().contentType();
        } catch (RuntimeException e) {
            throw unsupportedType("Content-Type could not be parsed; it must be application/json");
        }
        boolean json = type.map(t -> {
            String subtype = t.mediaType().subtype().toLowerCase(Locale.ROOT);
            return t.mediaType().type().equalsIgnoreCase("application")
                    && (subtype.equals("json") || subtype.endsWith("+json"));
        }).orElse(false);
        if (!json) {
            throw unsupportedType("Content-Type must be application/json");
        }
    }

    private static InvalidInputException unsupportedType(String detail) {
        return new InvalidInputException(ErrorCode.UNSUPPORTED_MEDIA_TYPE, detail);
    }

    private static byte[] readBounded(ServerRequest req, long maxBytes) {
        long declared = req.headers().contentLength().orElse(-1L);
        if (declared > maxBytes) {
            throw tooLarge(maxBytes);
        }
        try (InputStream in = req.content().inputStream()) {
            if (declared >= 0) {
                // The server delivers exactly Content-Length bytes; asking for just those allocates just those
                // (readNBytes(max) starts with a 16 KiB buffer, which was most of a decision's garbage).
                return in.readNBytes((int) declared);
            }
            ByteArrayOutputStream body = new ByteArrayOutputStream(512);
            byte[] chunk = new byte[4096];
            for (int n; (n = in.read(chunk)) != -1; ) {
                if (body.size() + n > maxBytes) {
                    throw tooLarge(maxBytes);
                }
                body.write(chunk, 0, n);
            }
            return body.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JsonNode parse(byte[] body) {
        try {
            return Json.requestReader().readTree(body);
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? ""
                    : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
            throw new InvalidInputException(ErrorCode.MALFORMED_JSON, "request body is not valid JSON" + where + ": "
                    + reason(e));
        } catch (IOException e) {
            throw new InvalidInputException(ErrorCode.MALFORMED_JSON, "request body could not be read as JSON");
        }
    }

    /** Jackson's own words, without the excerpt of the body it appends (which may hold anything). */
    private static String reason(JsonProcessingException e) {
        String message = e.getOriginalMessage() == null ? "unreadable" : e.getOriginalMessage();
        int excerpt = message.indexOf('\n');
        return InputContract.shown(excerpt < 0 ? message : message.substring(0, excerpt));
    }

    private static InvalidInputException tooLarge(long maxBytes) {
        return new InvalidInputException(ErrorCode.PAYLOAD_TOO_LARGE, "request body exceeds " + maxBytes + " bytes");
    }
}
