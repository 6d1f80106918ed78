package dev.warden.client;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One question for {@code POST /authorize}: may {@code agentId} take {@code action} on {@code resource}, with these
 * arguments and this context (docs/authorization.md). Arguments and context are JSON values (maps, lists, strings,
 * numbers, booleans).
 */
public record AuthorizationRequest(
        String agentId, String action, String resource, Map<String, Object> arguments, Map<String, Object> context) {
    public AuthorizationRequest {
        require(agentId, "agentId");
        require(action, "action");
        require(resource, "resource");
        arguments = Map.copyOf(arguments);
        context = Map.copyOf(context);
    }

    /** A request with no arguments and no context. */
    public static AuthorizationRequest of(String agentId, String action, String resource) {
        return new AuthorizationRequest(agentId, action, resource, Map.of(), Map.of());
    }

    /** This request with {@code arguments}. */
    public AuthorizationRequest withArguments(Map<String, Object> arguments) {
        return new AuthorizationRequest(agentId, action, resource, arguments, context);
    }

    /** This request with {@code context}. */
    public AuthorizationRequest withContext(Map<String, Object> context) {
        return new AuthorizationRequest(agentId, action, resource, arguments, context);
    }

    Map<String, Object> body() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("agentId", agentId);
        body.put("action", action);
        body.put("resource", resource);
        if (!arguments.isEmpty()) {
            body.put("arguments", arguments);
        }
        if (!context.isEmpty()) {
            body.put("context", context);
        }
        return body;
    }

    private static void require(String value, String name) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " must not be blank");
        }
    }
}
