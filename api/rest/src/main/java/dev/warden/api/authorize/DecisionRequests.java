package dev.warden.api.authorize;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.http.JsonInput;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.Ids;
import dev.warden.authorizer.domain.ResourcePattern;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The JSON form of a decision request, {@code {agentId, action, resource, arguments?, context?: {ip, userAgent}}},
 * as {@code POST /authorize} and the MCP tool {@code check_authorization} take it.
 */
public final class DecisionRequests {
    private static final Set<String> FIELDS = Set.of("agentId", "action", "resource", "arguments", "context");
    private static final Set<String> CONTEXT_FIELDS = Set.of("ip", "userAgent");
    private static final int MAX_ARGUMENTS_BYTES = 64 * 1024;

    private DecisionRequests() {}

    /**
     * The request {@code body} asks for, from a caller at {@code callerIp} (as Warden saw it).
     *
     * @throws dev.warden.api.errors.InvalidInputException naming every bad field
     */
    public static AuthorizationService.Request parse(ObjectNode body, String callerIp) {
        JsonInput in = JsonInput.of(body, FIELDS);
        Optional<AgentId> agentId = in.requiredValue("agentId", Ids.MAX_LENGTH, AgentId::of);
        Optional<String> action = in.requiredString("action", 128);
        Optional<String> resource = in.requiredString("resource", ResourcePattern.MAX_LENGTH);
        resource.flatMap(ResourcePattern::resourceProblem).ifPresent(p -> in.error("resource", p));
        Map<String, Object> arguments =
                in.optionalObject("arguments", MAX_ARGUMENTS_BYTES).orElse(Map.of());
        Optional<String> ip = Optional.empty();
        Optional<String> userAgent = Optional.empty();
        Optional<JsonNode> context = in.raw("context");
        if (context.isPresent()) {
            if (context.get() instanceof ObjectNode object) {
                JsonInput ctx = in.nested(object, "context", CONTEXT_FIELDS);
                ip = ctx.optionalString("ip", 64);
                userAgent = ctx.optionalString("userAgent", 512);
            } else {
                in.error("context", "must be a JSON object");
            }
        }
        in.validate();
        return new AuthorizationService.Request(
                agentId.orElseThrow(),
                action.orElseThrow(),
                resource.orElseThrow(),
                arguments,
                ip,
                userAgent,
                callerIp);
    }
}
