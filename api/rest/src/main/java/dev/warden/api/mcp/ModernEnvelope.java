package dev.warden.api.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.pipeline.contract.Json;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The per-request envelope of MCP 2026-07-28 and later ("modern" revisions: no {@code initialize}, every request
 * names its protocol version and client capabilities in {@code params._meta}), and the checks a request must pass
 * before it is dispatched, in the order the revision's reference SDKs apply them: the envelope is there, the HTTP
 * headers agree with the body, the version is one this server speaks.
 */
final class ModernEnvelope {
    static final String PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
    static final String CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
    static final String SERVER_INFO = "io.modelcontextprotocol/serverInfo";

    static final String VERSION_HEADER = "MCP-Protocol-Version";
    static final String METHOD_HEADER = "Mcp-Method";
    static final String NAME_HEADER = "Mcp-Name";

    static final int INVALID_PARAMS = -32602;
    static final int HEADER_MISMATCH = -32020;
    static final int UNSUPPORTED_PROTOCOL_VERSION = -32022;

    private static final String SENTINEL_START = "=?base64?";
    private static final String SENTINEL_END = "?=";

    /** Why a request is refused: its JSON-RPC error. */
    record Rejection(int code, String message, Optional<ObjectNode> data) {
        Rejection(int code, String message) {
            this(code, message, Optional.empty());
        }
    }

    private ModernEnvelope() {}

    /**
     * Whether a request is of a modern revision: its {@code MCP-Protocol-Version} header names one, its
     * {@code _meta} claims a protocol version (no earlier revision has that key), or it is {@code server/discover}
     * (a method earlier revisions do not have).
     */
    static boolean claimed(Optional<String> headerVersion, JsonNode params, String method, List<String> modern) {
        return headerVersion.map(modern::contains).orElse(false)
                || params.path("_meta").has(PROTOCOL_VERSION)
                || method.equals("server/discover");
    }

    /** The {@code -32022} error for {@code requested}, naming every version this server speaks. */
    static Rejection unsupported(String requested, List<String> supported) {
        ObjectNode data = Json.mapper().createObjectNode();
        supported.forEach(data.putArray("supported")::add);
        data.put("requested", requested);
        return new Rejection(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version", Optional.of(data));
    }

    /**
     * Checks a modern request; {@code headers} gives every value of a header by its name. Empty when the request
     * may be dispatched.
     */
    static Optional<Rejection> check(
            String method,
            JsonNode params,
            Function<String, List<String>> headers,
            List<String> modern,
            List<String> supported) {
        JsonNode meta = params.path("_meta");
        if (!meta.isObject() || !meta.has(PROTOCOL_VERSION) || !meta.has(CLIENT_CAPABILITIES)) {
            return Optional.of(new Rejection(
                    INVALID_PARAMS,
                    "params._meta must carry " + PROTOCOL_VERSION + " and " + CLIENT_CAPABILITIES + " (MCP "
                            + modern.getFirst() + " has no initialize: every request names them)"));
        }
        if (!meta.get(CLIENT_CAPABILITIES).isObject()) {
            return Optional.of(new Rejection(INVALID_PARAMS, CLIENT_CAPABILITIES + " must be an object"));
        }
        for (String name : List.of(VERSION_HEADER, METHOD_HEADER, NAME_HEADER)) {
            if (headers.apply(name).size() > 1) {
                return Optional.of(new Rejection(HEADER_MISMATCH, name + " header appears more than once"));
            }
        }
        JsonNode version = meta.get(PROTOCOL_VERSION);
        Optional<String> versionHeader = first(headers, VERSION_HEADER);
        if (versionHeader.isEmpty()
                || !version.isTextual()
                || !versionHeader.get().equals(version.textValue())) {
            return Optional.of(new Rejection(
                    HEADER_MISMATCH,
                    VERSION_HEADER + " header "
                            + versionHeader.map(v -> "does not match").orElse("is missing; it must match")
                            + " params._meta." + PROTOCOL_VERSION));
        }
        Optional<String> methodHeader = first(headers, METHOD_HEADER);
        if (methodHeader.isEmpty() || !methodHeader.get().equals(method)) {
            return Optional.of(new Rejection(
                    HEADER_MISMATCH,
                    METHOD_HEADER + " header "
                            + methodHeader.map(v -> "does not match").orElse("is missing; it must match")
                            + " the request's method"));
        }
        if (method.equals("tools/call") && params.path("name").isTextual()) {
            Optional<String> nameHeader = first(headers, NAME_HEADER);
            if (nameHeader.isEmpty()) {
                return Optional.of(
                        new Rejection(HEADER_MISMATCH, NAME_HEADER + " header is missing; it must match params.name"));
            }
            if (!decode(nameHeader.get())
                    .map(params.get("name").textValue()::equals)
                    .orElse(false)) {
                return Optional.of(new Rejection(HEADER_MISMATCH, NAME_HEADER + " header does not match params.name"));
            }
        }
        if (!modern.contains(version.textValue())) {
            return Optional.of(unsupported(version.textValue(), supported));
        }
        return Optional.empty();
    }

    /**
     * A header value as sent: plain, or the UTF-8 bytes in the {@code =?base64?…?=} sentinel form. Empty for a
     * sentinel that is not canonical base64 of UTF-8, which then matches nothing.
     */
    static Optional<String> decode(String value) {
        if (!(value.startsWith(SENTINEL_START)
                && value.endsWith(SENTINEL_END)
                && value.length() >= SENTINEL_START.length() + SENTINEL_END.length())) {
            return Optional.of(value);
        }
        String payload = value.substring(SENTINEL_START.length(), value.length() - SENTINEL_END.length());
        try {
            byte[] bytes = Base64.getDecoder().decode(payload);
            if (!Base64.getEncoder().encodeToString(bytes).equals(payload)) {
                return Optional.empty();
            }
            return Optional.of(StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString());
        } catch (IllegalArgumentException | CharacterCodingException e) {
            return Optional.empty();
        }
    }

    private static Optional<String> first(Function<String, List<String>> headers, String name) {
        return headers.apply(name).stream().findFirst();
    }
}
