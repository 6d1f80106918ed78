package dev.warden.api.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.access.Principal;
import dev.warden.api.access.Scopes;
import dev.warden.api.agents.AgentService;
import dev.warden.api.audit.JdbcAuditReader;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.authorize.AuthorizationService;
import dev.warden.api.dashboard.DashboardStats;
import dev.warden.api.errors.ForbiddenException;
import dev.warden.api.errors.InvalidInputException;
import dev.warden.api.errors.WardenException;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.RequestReader;
import dev.warden.api.http.Responses;
import dev.warden.api.oauth.Issuer;
import dev.warden.api.ratelimit.ClientIp;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.net.URI;
import java.time.InstantSource;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Warden's MCP endpoint, {@code /mcp}, on the Streamable HTTP transport (stateless: no session id, no
 * server-initiated stream). {@code POST} takes one JSON-RPC 2.0 message: a request is answered with
 * {@code application/json}, a notification or response with 202 and no body. {@code GET} and {@code DELETE}
 * answer 405 (this server opens no SSE stream and keeps no session). Callers need the {@code mcp} scope (an OAuth
 * access token issued for this resource, or a Warden credential); a request from a browser origin other than the
 * issuer's, loopback or a configured one is refused (403, DNS rebinding).
 *
 * <p>Two eras of the protocol are served side by side, chosen per request. The handshake revisions
 * ({@link #LEGACY_VERSIONS}): {@code initialize}, {@code ping}, {@code tools/list}, {@code tools/call}, errors of a
 * method answered 200. Revision 2026-07-28 ({@link #MODERN_VERSIONS}), when the request claims it (header,
 * {@code _meta} or {@code server/discover}; {@link ModernEnvelope}): no {@code initialize}, every request carries its
 * version and client capabilities in {@code _meta} and the headers that mirror the body; {@code server/discover},
 * {@code tools/list}, {@code tools/call}; results carry {@code resultType} and the server's identity; errors have
 * the revision's HTTP statuses (400, and 404 for an unknown method).
 */
public final class McpRoutes implements DeclaredService {
    /** Revisions negotiated by {@code initialize} (one per session of the client), newest first. */
    static final List<String> LEGACY_VERSIONS =
            List.of("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07");

    /** Revisions without a handshake, named on every request ({@code server/discover} lists these), newest first. */
    static final List<String> MODERN_VERSIONS = List.of("2026-07-28");

    /** Every revision this server speaks, newest first (an unsupported version's error names these). */
    static final List<String> VERSIONS =
            Stream.concat(MODERN_VERSIONS.stream(), LEGACY_VERSIONS.stream()).toList();

    /** How long a client may keep a {@code server/discover} or {@code tools/list} answer (MCP 2026-07-28 caching). */
    static final long CACHE_TTL_MS = 300_000;

    private static final String INSTRUCTIONS = "Tools over your Warden agents: check an authorization, list and "
            + "inspect agents, query the audit log, dashboard statistics. Issuer: ";

    private static final String SERVER_VERSION = "0.1.0";

    private final McpTools tools;
    private final ClientIp clientIp;
    private final Issuer issuer;
    private final List<String> allowedOrigins;
    private final long maxBodyBytes;

    McpRoutes(McpTools tools, Issuer issuer, ClientIp clientIp, List<String> allowedOrigins, long maxBodyBytes) {
        this.clientIp = clientIp;
        this.tools = tools;
        this.issuer = issuer;
        this.allowedOrigins = List.copyOf(allowedOrigins);
        this.maxBodyBytes = maxBodyBytes;
    }

    /** The endpoint over the given services. */
    public static McpRoutes create(
            AgentService agents,
            AuthorizationService authorization,
            JdbcAuditReader audit,
            DashboardStats dashboard,
            InstantSource clock,
            Issuer issuer,
            ClientIp clientIp,
            List<String> allowedOrigins,
            long maxBodyBytes) {
        return new McpRoutes(
                new McpTools(agents, authorization, audit, dashboard, clock),
                issuer,
                clientIp,
                allowedOrigins,
                maxBodyBytes);
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.post("/", Access.scope(Scopes.MCP), this::post)
                .get("/", Access.scope(Scopes.MCP), McpRoutes::notAllowed)
                .delete("/", Access.scope(Scopes.MCP), McpRoutes::notAllowed);
    }

    private static void notAllowed(ServerRequest req, ServerResponse res) {
        res.header(HeaderNames.ALLOW, "POST");
        res.status(Status.METHOD_NOT_ALLOWED_405).send();
    }

    private void post(ServerRequest req, ServerResponse res) {
        Optional<String> origin = req.headers().first(HeaderNames.ORIGIN);
        if (origin.isPresent() && !originAllowed(origin.get())) {
            throw new ForbiddenException("requests from origin " + origin.get() + " are not accepted");
        }
        Optional<String> version = req.headers().first(HeaderNames.create(ModernEnvelope.VERSION_HEADER));
        boolean unknownVersion = version.isPresent() && !VERSIONS.contains(version.get());
        JsonNode message;
        try {
            message = RequestReader.readObject(req, maxBodyBytes);
        } catch (InvalidInputException e) {
            if (unknownVersion) {
                throw unsupportedHeader();
            }
            send(
                    res,
                    Status.BAD_REQUEST_400,
                    error(null, -32700, "Parse error: " + e.detail().orElse("not a JSON object")));
            return;
        }
        JsonNode id = message.get("id");
        JsonNode method = message.get("method");
        boolean validId = id != null && (id.isTextual() || id.isIntegralNumber());
        if (unknownVersion) {
            if (!ModernEnvelope.claimed(
                    Optional.empty(),
                    message.path("params"),
                    message.path("method").asText(""),
                    MODERN_VERSIONS)) {
                // A request of the handshake revisions: refused as it always was.
                throw unsupportedHeader();
            }
            // 2026-07-28 names the error, and the versions this server speaks.
            send(
                    res,
                    Status.BAD_REQUEST_400,
                    error(validId ? id : null, ModernEnvelope.unsupported(version.get(), VERSIONS)));
            return;
        }
        if (method == null) {
            // a response or an error from the client: nothing is waiting for one
            res.status(Status.ACCEPTED_202).send();
            return;
        }
        if (!"2.0".equals(message.path("jsonrpc").textValue()) || !method.isTextual()) {
            send(res, Status.BAD_REQUEST_400, error(id, -32600, "Invalid Request"));
            return;
        }
        if (id == null) {
            res.status(Status.ACCEPTED_202).send();
            return;
        }
        if (!validId) {
            send(res, Status.BAD_REQUEST_400, error(null, -32600, "Invalid Request: id must be a string or integer"));
            return;
        }
        JsonNode params = message.get("params");
        ObjectNode paramsObject =
                params instanceof ObjectNode o ? o : Json.mapper().createObjectNode();
        Principal caller = AuthFilter.principal(req);
        String callerIp = clientIp.text(req);
        if (!ModernEnvelope.claimed(version, paramsObject, method.textValue(), MODERN_VERSIONS)) {
            send(res, Status.OK_200, handle(caller, callerIp, id, method.textValue(), paramsObject));
            return;
        }
        Optional<ModernEnvelope.Rejection> refused = ModernEnvelope.check(
                method.textValue(),
                paramsObject,
                name -> req.headers().all(HeaderNames.create(name), List::of),
                MODERN_VERSIONS,
                VERSIONS);
        ObjectNode answer = refused.isPresent()
                ? error(id, refused.get())
                : handleModern(caller, callerIp, id, method.textValue(), paramsObject);
        send(res, modernStatus(answer), answer);
    }

    /** A request of the handshake revisions: as they have always been answered. */
    private ObjectNode handle(Principal caller, String callerIp, JsonNode id, String method, ObjectNode params) {
        return switch (method) {
            case "initialize" -> result(id, initialize(params));
            case "ping" -> result(id, Json.mapper().createObjectNode());
            case "tools/list" -> result(id, toolList());
            case "tools/call" -> callTool(caller, callerIp, id, params);
            default -> methodNotFound(id, method);
        };
    }

    /**
     * A checked request of revision 2026-07-28: {@code initialize} and {@code ping} are gone from it; every result is
     * {@code "resultType": "complete"} with the server's identity in {@code _meta}, and the answers that do not
     * depend on the caller carry caching hints.
     */
    private ObjectNode handleModern(Principal caller, String callerIp, JsonNode id, String method, ObjectNode params) {
        ObjectNode answer = switch (method) {
            case "server/discover" -> result(id, cacheable(discover()));
            case "tools/list" -> result(id, cacheable(toolList()));
            case "tools/call" -> callTool(caller, callerIp, id, params);
            default -> methodNotFound(id, method);
        };
        if (answer.get("result") instanceof ObjectNode result) {
            result.put("resultType", "complete");
            result.putObject("_meta").set(ModernEnvelope.SERVER_INFO, serverInfo());
        }
        return answer;
    }

    /** The HTTP status of a 2026-07-28 answer: 200 for a result, else by its JSON-RPC error. */
    private static Status modernStatus(ObjectNode answer) {
        return switch (answer.path("error").path("code").asInt(0)) {
            case 0 -> Status.OK_200;
            case -32601 -> Status.NOT_FOUND_404;
            default -> Status.BAD_REQUEST_400;
        };
    }

    private ObjectNode discover() {
        ObjectNode out = Json.mapper().createObjectNode();
        MODERN_VERSIONS.forEach(out.putArray("supportedVersions")::add);
        out.set("capabilities", capabilities());
        out.put("instructions", INSTRUCTIONS + issuer.value());
        return out;
    }

    /** The same for every caller: anyone's cache may keep it for {@link #CACHE_TTL_MS}. */
    private static ObjectNode cacheable(ObjectNode result) {
        return result.put("ttlMs", CACHE_TTL_MS).put("cacheScope", "public");
    }

    private static ObjectNode capabilities() {
        ObjectNode out = Json.mapper().createObjectNode();
        out.putObject("tools").put("listChanged", false);
        return out;
    }

    private static ObjectNode serverInfo() {
        return Json.mapper()
                .createObjectNode()
                .put("name", "warden")
                .put("title", "Warden")
                .put("version", SERVER_VERSION);
    }

    private ObjectNode initialize(ObjectNode params) {
        String asked = params.path("protocolVersion").asText("");
        ObjectNode out = Json.mapper().createObjectNode();
        // A handshake negotiates a handshake revision: 2026-07-28 has no initialize, so it is never offered here.
        out.put("protocolVersion", LEGACY_VERSIONS.contains(asked) ? asked : LEGACY_VERSIONS.getFirst());
        out.set("capabilities", capabilities());
        out.set("serverInfo", serverInfo());
        out.put("instructions", INSTRUCTIONS + issuer.value());
        return out;
    }

    private ObjectNode toolList() {
        ObjectNode out = Json.mapper().createObjectNode();
        ArrayNode list = out.putArray("tools");
        for (McpTools.Tool tool : tools.all()) {
            list.addObject()
                    .put("name", tool.name())
                    .put("description", tool.description())
                    .set("inputSchema", tool.inputSchema());
        }
        return out;
    }

    private ObjectNode callTool(Principal caller, String callerIp, JsonNode id, ObjectNode params) {
        String name = params.path("name").asText("");
        Optional<McpTools.Tool> tool = tools.find(name);
        if (tool.isEmpty()) {
            return error(id, -32602, "Unknown tool: " + shortened(name));
        }
        JsonNode arguments = params.get("arguments");
        if (arguments != null && !arguments.isNull() && !(arguments instanceof ObjectNode)) {
            return error(id, -32602, "arguments must be an object");
        }
        ObjectNode args = arguments instanceof ObjectNode o ? o : Json.mapper().createObjectNode();
        ObjectNode result = Json.mapper().createObjectNode();
        try {
            JsonNode value = tools.call(tool.get(), caller, args, callerIp);
            result.putArray("content").addObject().put("type", "text").put("text", value.toString());
            if (value instanceof ObjectNode object) {
                result.set("structuredContent", object);
            } else {
                result.putObject("structuredContent").set("items", value);
            }
            result.put("isError", false);
        } catch (WardenException e) {
            // Tool failures are results the model can read (MCP: tool execution errors), not protocol errors.
            result.putArray("content")
                    .addObject()
                    .put("type", "text")
                    .put("text", e.code().code() + ": " + e.describe());
            result.put("isError", true);
        }
        return result(id, result);
    }

    private boolean originAllowed(String origin) {
        String o = origin.toLowerCase(Locale.ROOT);
        if (allowedOrigins.contains(origin) || o.equals(originOf(issuer.value()))) {
            return true;
        }
        try {
            String host = URI.create(o).getHost();
            return host != null && (host.equals("localhost") || host.equals("127.0.0.1") || host.equals("[::1]"));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static String originOf(String url) {
        URI uri = URI.create(url);
        return (uri.getScheme() + "://" + uri.getRawAuthority()).toLowerCase(Locale.ROOT);
    }

    private static ObjectNode result(JsonNode id, JsonNode result) {
        ObjectNode out = Json.mapper().createObjectNode().put("jsonrpc", "2.0");
        out.set("id", id);
        out.set("result", result);
        return out;
    }

    private static ObjectNode error(JsonNode id, int code, String message) {
        ObjectNode out = Json.mapper().createObjectNode().put("jsonrpc", "2.0");
        out.set("id", id);
        out.putObject("error").put("code", code).put("message", message);
        return out;
    }

    private static ObjectNode error(JsonNode id, ModernEnvelope.Rejection rejection) {
        ObjectNode out = error(id, rejection.code(), rejection.message());
        rejection.data().ifPresent(data -> ((ObjectNode) out.get("error")).set("data", data));
        return out;
    }

    private static InvalidInputException unsupportedHeader() {
        return InvalidInputException.field(
                ModernEnvelope.VERSION_HEADER, "is not a supported protocol version " + LEGACY_VERSIONS);
    }

    private static ObjectNode methodNotFound(JsonNode id, String method) {
        return error(id, -32601, "Method not found: " + shortened(method));
    }

    private static String shortened(String text) {
        return text.length() > 64 ? text.substring(0, 64) : text;
    }

    private static void send(ServerResponse res, Status status, ObjectNode body) {
        Responses.json(res, status, body);
    }
}
