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

/**
 * Warden's MCP endpoint, {@code /mcp}, on the Streamable HTTP transport (stateless: no session id, no
 * server-initiated stream). {@code POST} takes one JSON-RPC 2.0 message: a request is answered with 200
 * {@code application/json}, a notification or response with 202 and no body. {@code GET} and {@code DELETE}
 * answer 405 (this server opens no SSE stream and keeps no session). The methods: {@code initialize},
 * {@code ping}, {@code tools/list}, {@code tools/call} ({@link McpTools}). Callers need the {@code mcp} scope
 * (an OAuth access token issued for this resource, or a Warden credential); a request from a browser origin
 * other than the issuer's, loopback or a configured one is refused (403, DNS rebinding).
 */
public final class McpRoutes implements DeclaredService {
    /** Protocol revisions this server speaks, newest first. */
    static final List<String> VERSIONS = List.of("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07");

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
        Optional<String> version = req.headers().first(HeaderNames.create("MCP-Protocol-Version"));
        if (version.isPresent() && !VERSIONS.contains(version.get())) {
            throw InvalidInputException.field(
                    "MCP-Protocol-Version", "is not a supported protocol version " + VERSIONS);
        }
        JsonNode message;
        try {
            message = RequestReader.readObject(req, maxBodyBytes);
        } catch (InvalidInputException e) {
            send(
                    res,
                    Status.BAD_REQUEST_400,
                    error(null, -32700, "Parse error: " + e.detail().orElse("not a JSON object")));
            return;
        }
        JsonNode id = message.get("id");
        JsonNode method = message.get("method");
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
        if (!(id.isTextual() || id.isIntegralNumber())) {
            send(res, Status.BAD_REQUEST_400, error(null, -32600, "Invalid Request: id must be a string or integer"));
            return;
        }
        JsonNode params = message.get("params");
        ObjectNode paramsObject =
                params instanceof ObjectNode o ? o : Json.mapper().createObjectNode();
        send(
                res,
                Status.OK_200,
                handle(AuthFilter.principal(req), clientIp.text(req), id, method.textValue(), paramsObject));
    }

    private ObjectNode handle(Principal caller, String callerIp, JsonNode id, String method, ObjectNode params) {
        return switch (method) {
            case "initialize" -> result(id, initialize(params));
            case "ping" -> result(id, Json.mapper().createObjectNode());
            case "tools/list" -> result(id, toolList());
            case "tools/call" -> callTool(caller, callerIp, id, params);
            default ->
                error(id, -32601, "Method not found: " + (method.length() > 64 ? method.substring(0, 64) : method));
        };
    }

    private ObjectNode initialize(ObjectNode params) {
        String asked = params.path("protocolVersion").asText("");
        ObjectNode out = Json.mapper().createObjectNode();
        out.put("protocolVersion", VERSIONS.contains(asked) ? asked : VERSIONS.getFirst());
        out.putObject("capabilities").putObject("tools").put("listChanged", false);
        out.putObject("serverInfo").put("name", "warden").put("title", "Warden").put("version", SERVER_VERSION);
        out.put(
                "instructions",
                "Tools over your Warden agents: check an authorization, list and inspect agents, "
                        + "query the audit log, dashboard statistics. Issuer: " + issuer.value());
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
            return error(id, -32602, "Unknown tool: " + (name.length() > 64 ? name.substring(0, 64) : name));
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

    private static void send(ServerResponse res, Status status, ObjectNode body) {
        Responses.json(res, status, body);
    }
}
