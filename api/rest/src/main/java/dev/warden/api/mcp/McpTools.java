package dev.warden.api.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Principal;
import dev.warden.api.agents.AgentJson;
import dev.warden.api.agents.AgentService;
import dev.warden.api.audit.AuditQuery;
import dev.warden.api.audit.AuditScope;
import dev.warden.api.audit.JdbcAuditReader;
import dev.warden.api.authorize.AuthorizationService;
import dev.warden.api.authorize.DecisionRequests;
import dev.warden.api.dashboard.DashboardStats;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.ForbiddenException;
import dev.warden.api.errors.InvalidInputException;
import dev.warden.api.http.InputContract;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.AgentStatus;
import dev.warden.pipeline.contract.AuditEntryCodec;
import dev.warden.pipeline.contract.AuditResult;
import dev.warden.pipeline.contract.Json;
import dev.warden.pipeline.contract.WireEnum;
import java.time.Instant;
import java.time.InstantSource;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The tools of Warden's MCP endpoint, over the signed-in user's own data through the same services (and so the
 * same access policy) as the REST API. Each tool needs a scope, as its REST route does; its answer is JSON, given
 * both as text content and as {@code structuredContent}.
 */
final class McpTools {
    /** One tool: its name, description, input schema, required scope and implementation. */
    record Tool(String name, String description, ObjectNode inputSchema, String scope, Body call) {}

    /** What a tool does, for a caller at {@code callerIp} (as Warden saw it) with the call's arguments. */
    @FunctionalInterface
    interface Body {
        JsonNode apply(Principal caller, ObjectNode args, String callerIp);
    }

    private final List<Tool> tools;

    McpTools(
            AgentService agents,
            AuthorizationService authorization,
            JdbcAuditReader audit,
            DashboardStats dashboard,
            InstantSource clock) {
        this.tools = List.of(
                new Tool(
                        "check_authorization",
                        "Ask whether an agent may perform an action on a resource. The "
                                + "decision is made and audited exactly as POST /authorize would.",
                        schema(
                                Map.of("agentId", "string", "action", "string", "resource", "string"),
                                List.of("agentId", "action", "resource")),
                        "authorize:write",
                        (caller, args, callerIp) -> {
                            AuthorizationService.Decision d =
                                    authorization.decide(caller, DecisionRequests.parse(args, callerIp));
                            ObjectNode out = Json.mapper().createObjectNode().put("allowed", d.allowed());
                            d.reason().ifPresent(r -> out.put("reason", r.name()));
                            d.approvalId().ifPresent(id -> out.put("approvalId", id));
                            out.put("auditId", d.auditId());
                            return out;
                        }),
                new Tool(
                        "list_agents",
                        "List your agents, optionally by status (active, suspended, revoked, expired).",
                        schema(Map.of("status", "string"), List.of()),
                        "agents:read",
                        (caller, args, callerIp) -> {
                            Optional<AgentStatus> status = text(args, "status")
                                    .map(s -> WireEnum.parse(AgentStatus.class, s)
                                            .orElseThrow(() ->
                                                    InvalidInputException.field("status", "is not an agent status")));
                            return AgentJson.renderAll(
                                    agents.list(
                                            caller, new AgentService.Query(status, Optional.empty(), Optional.empty())),
                                    clock.instant());
                        }),
                new Tool(
                        "get_agent",
                        "Show one of your agents: status, permissions, constraints, expiry.",
                        schema(Map.of("agentId", "string"), List.of("agentId")),
                        "agents:read",
                        (caller, args, callerIp) -> {
                            AgentId id = agentId(text(args, "agentId")
                                    .orElseThrow(() -> InvalidInputException.field("agentId", "is required")));
                            return AgentJson.render(agents.get(caller, id), clock.instant(), Optional.empty());
                        }),
                new Tool(
                        "query_audit",
                        "Query the audit log of your agents, newest first.",
                        schema(
                                Map.of(
                                        "agentId", "string", "action", "string", "result", "string", "since", "string",
                                        "limit", "integer"),
                                List.of()),
                        "audit:read",
                        (caller, args, callerIp) -> {
                            int limit = args.path("limit").canConvertToInt()
                                    ? args.path("limit").intValue()
                                    : 20;
                            if (limit < 1 || limit > AuditQuery.MAX_LIMIT) {
                                throw InvalidInputException.field("limit", "must be 1.." + AuditQuery.MAX_LIMIT);
                            }
                            Optional<AuditResult> result = text(args, "result")
                                    .map(r -> WireEnum.parse(AuditResult.class, r)
                                            .orElseThrow(
                                                    () -> InvalidInputException.field("result", "is not a result")));
                            Optional<Instant> since = text(args, "since").map(McpTools::instant);
                            AuditQuery q = new AuditQuery(
                                    text(args, "agentId"),
                                    Optional.empty(),
                                    since,
                                    Optional.empty(),
                                    text(args, "action").map(List::of).orElse(List.of()),
                                    result,
                                    limit,
                                    0);
                            ArrayNode out = Json.mapper().createArrayNode();
                            audit.query(AuditScope.of(caller), q).forEach(e -> out.add(AuditEntryCodec.toJson(e)));
                            return out;
                        }),
                new Tool(
                        "dashboard_stats",
                        "Dashboard statistics of your agents: counts, audit entries, denial rate "
                                + "over the last 24 hours, top agents by calls.",
                        schema(Map.of(), List.of()),
                        "dashboard:read",
                        (caller, args, callerIp) -> dashboard.stats(caller)));
    }

    List<Tool> all() {
        return tools;
    }

    Optional<Tool> find(String name) {
        return tools.stream().filter(t -> t.name().equals(name)).findFirst();
    }

    /** Runs {@code tool} for {@code caller} at {@code callerIp}, after checking the tool's scope. */
    JsonNode call(Tool tool, Principal caller, ObjectNode args, String callerIp) {
        if (!caller.holds(tool.scope())) {
            throw new ForbiddenException(ErrorCode.INSUFFICIENT_SCOPE, "this token lacks the scope " + tool.scope());
        }
        return tool.call().apply(caller, args, callerIp);
    }

    private static ObjectNode schema(Map<String, String> properties, List<String> required) {
        ObjectNode schema = Json.mapper().createObjectNode().put("type", "object");
        ObjectNode props = schema.putObject("properties");
        properties.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .forEach(e -> props.putObject(e.getKey()).put("type", e.getValue()));
        ArrayNode req = schema.putArray("required");
        required.forEach(req::add);
        schema.put("additionalProperties", false);
        return schema;
    }

    private static Optional<String> text(ObjectNode args, String name) {
        JsonNode node = args.get(name);
        if (node == null || node.isNull()) {
            return Optional.empty();
        }
        if (!node.isTextual() || node.textValue().length() > 512) {
            throw InvalidInputException.field(name, "must be a string of at most 512 characters");
        }
        return Optional.of(node.textValue());
    }

    private static AgentId agentId(String value) {
        try {
            return AgentId.of(value);
        } catch (IllegalArgumentException e) {
            throw InvalidInputException.field("agentId", "is not an agent id");
        }
    }

    private static Instant instant(String value) {
        try {
            return InputContract.timestamp(value);
        } catch (IllegalArgumentException | DateTimeParseException e) {
            throw InvalidInputException.field("since", "must be an ISO 8601 timestamp between years 0001 and 9999");
        }
    }
}
