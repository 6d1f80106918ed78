package dev.warden.api.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.FieldError;
import dev.warden.api.errors.InvalidInputException;
import dev.warden.pipeline.contract.CleanText;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.HttpMediaType;
import io.helidon.webserver.http.ServerRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The one reader of request bodies, JSON ({@link #readObject}) and {@code application/x-www-form-urlencoded}
 * ({@link #readForm}, for the OAuth endpoints), with the same limits: content type checked (415, also when it
 * does not parse), size bounded before parsing (413), malformed bodies (invalid UTF-8, duplicate keys or
 * parameters, bad percent-encoding, nesting or numbers beyond the request limits) answered with a 400 that
 * says what broke, and every value held to the {@link InputContract} (400 naming each field) before a route
 * sees it. Never a 500.
 */
public final class RequestReader {
    private RequestReader() {}

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

    /** Most parameters a form body may carry. */
    static final int MAX_FORM_PARAMETERS = 64;

    private static final String FORM = "application/x-www-form-urlencoded";

    /**
     * Reads the request body as {@code application/x-www-form-urlencoded} parameters (RFC 6749 appendix B) of
     * at most {@code maxBytes} bytes. A parameter may appear once (RFC 6749 section 3.1); an empty value
     * counts as absent, as the RFC says.
     *
     * @throws InvalidInputException on bad input
     */
    public static Map<String, String> readForm(ServerRequest req, long maxBytes) {
        requireContentType(
                req,
                FORM,
                t -> t.mediaType().type().equalsIgnoreCase("application")
                        && t.mediaType().subtype().equalsIgnoreCase("x-www-form-urlencoded"));
        return parseForm(readBounded(req, maxBytes));
    }

    /**
     * Parses a form body.
     *
     * @throws InvalidInputException for invalid UTF-8, bad percent-encoding, a repeated parameter, too many
     *                               parameters or a value the {@link InputContract} refuses
     */
    static Map<String, String> parseForm(byte[] body) {
        String text;
        try {
            text = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(body))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new InvalidInputException(ErrorCode.BAD_REQUEST, "the form body is not valid UTF-8");
        }
        Map<String, String> params = new LinkedHashMap<>();
        if (text.isEmpty()) {
            return params;
        }
        List<FieldError> errors = new ArrayList<>();
        for (String pair : text.split("&", -1)) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = decode(eq < 0 ? pair : pair.substring(0, eq));
            String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
            if (params.containsKey(name)) {
                throw InvalidInputException.field(InputContract.shown(name), "must not be repeated");
            }
            if (params.size() == MAX_FORM_PARAMETERS) {
                throw new InvalidInputException(
                        ErrorCode.BAD_REQUEST, "at most " + MAX_FORM_PARAMETERS + " parameters");
            }
            CleanText.problem(name)
                    .or(() -> CleanText.problem(value))
                    .ifPresent(p -> errors.add(new FieldError(InputContract.shown(name), p)));
            params.put(name, value);
        }
        if (!errors.isEmpty()) {
            throw new InvalidInputException(errors);
        }
        params.values().removeIf(String::isEmpty);
        return params;
    }

    private static String decode(String encoded) {
        try {
            return URLDecoder.decode(encoded, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new InvalidInputException(ErrorCode.BAD_REQUEST, "the form body has a bad percent-encoding");
        }
    }

    private static void requireJsonContentType(ServerRequest req) {
        requireContentType(req, "application/json", t -> {
            String subtype = t.mediaType().subtype().toLowerCase(Locale.ROOT);
            return t.mediaType().type().equalsIgnoreCase("application")
                    && (subtype.equals("json") || subtype.endsWith("+json"));
        });
    }

    private static void requireContentType(ServerRequest req, String expected, Predicate<HttpMediaType> accepts) {
        Optional<HttpMediaType> type;
        try {
            type = req.headers().contentType();
        } catch (RuntimeException e) {
            throw unsupportedType("Content-Type could not be parsed; it must be " + expected);
        }
        if (!type.map(accepts::test).orElse(false)) {
            throw unsupportedType("Content-Type must be " + expected);
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
            String where = e.getLocation() == null
                    ? ""
                    : " at line " + e.getLocation().getLineNr() + ", column "
                            + e.getLocation().getColumnNr();
            throw new InvalidInputException(
                    ErrorCode.MALFORMED_JSON, "request body is not valid JSON" + where + ": " + reason(e));
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
