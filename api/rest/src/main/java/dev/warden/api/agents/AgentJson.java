package dev.warden.api.agents;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.http.JsonInput;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentType;
import dev.warden.authorizer.domain.Budget;
import dev.warden.authorizer.domain.Permission;
import dev.warden.authorizer.domain.TenantId;
import dev.warden.authorizer.domain.UserId;
import dev.warden.pipeline.contract.Json;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The JSON forms of the Agent resource (SPEC: Agent) and of its create and update requests. */
public final class AgentJson {
    static final int MAX_NAME = 200;
    static final int MAX_METADATA_BYTES = 64 * 1024;

    private static final Set<String> CREATE_FIELDS =
            Set.of("ownerId", "tenantId", "name", "type", "permissions", "expiresAt", "metadata", "budget");
    private static final Set<String> PATCH_FIELDS = Set.of("name", "permissions", "expiresAt", "metadata", "budget");

    private AgentJson() {}

    static AgentService.NewAgent parseCreate(ObjectNode body) {
        JsonInput in = JsonInput.of(body, CREATE_FIELDS);
        Optional<UserId> owner = in.requiredValue("ownerId", 128, UserId::of);
        Optional<TenantId> tenant = in.optionalValue("tenantId", 128, TenantId::of);
        Optional<String> name = in.requiredString("name", MAX_NAME);
        Optional<AgentType> type = in.requiredEnum("type", AgentType.class);
        List<Permission> permissions = in.optionalObjectArray("permissions", PermissionJson.MAX_PERMISSIONS)
                .map(items -> PermissionJson.parse(in, "permissions", items))
                .orElse(List.of());
        Optional<Instant> expiresAt = in.optionalInstant("expiresAt");
        Map<String, Object> metadata =
                in.optionalObject("metadata", MAX_METADATA_BYTES).orElse(Map.of());
        Optional<Budget> budget = BudgetJson.parse(in);
        in.validate();
        return new AgentService.NewAgent(
                owner.orElseThrow(),
                tenant,
                name.orElseThrow(),
                type.orElseThrow(),
                permissions,
                expiresAt,
                metadata,
                budget);
    }

    static AgentService.Patch parsePatch(ObjectNode body) {
        JsonInput in = JsonInput.of(body, PATCH_FIELDS);
        if (in.isNull("name")) {
            in.error("name", "cannot be null");
        }
        if (in.isNull("permissions")) {
            in.error("permissions", "cannot be null; use [] to remove every permission");
        }
        Optional<String> name = in.optionalString("name", MAX_NAME);
        Optional<List<Permission>> permissions = in.optionalObjectArray("permissions", PermissionJson.MAX_PERMISSIONS)
                .map(items -> PermissionJson.parse(in, "permissions", items));
        Optional<Optional<Instant>> expiresAt =
                in.has("expiresAt") ? Optional.of(in.optionalInstant("expiresAt")) : Optional.empty();
        Optional<Map<String, Object>> metadata = in.has("metadata")
                ? Optional.of(in.optionalObject("metadata", MAX_METADATA_BYTES).orElse(Map.of()))
                : Optional.empty();
        Optional<Optional<Budget>> budget = in.has("budget") ? Optional.of(BudgetJson.parse(in)) : Optional.empty();
        in.validate();
        return new AgentService.Patch(name, permissions, expiresAt, metadata, budget);
    }

    public static ObjectNode render(Agent agent, Instant now, Optional<String> token) {
        ObjectNode node = Json.mapper()
                .createObjectNode()
                .put("id", agent.id().value())
                .put("ownerId", agent.ownerId().value())
                .put("tenantId", agent.tenantId().map(TenantId::value).orElse(null))
                .put("name", agent.name())
                .put("type", agent.type().wireName())
                .put("status", agent.status(now).wireName());
        token.ifPresent(t -> node.put("token", t));
        node.set("permissions", PermissionJson.render(agent.permissions()));
        node.put("expiresAt", agent.expiresAt().map(Json::timestamp).orElse(null));
        node.set("metadata", Json.mapper().valueToTree(agent.metadata()));
        node.set(
                "budget",
                agent.budget()
                        .<JsonNode>map(b -> Json.mapper().valueToTree(BudgetJson.asData(b)))
                        .orElse(Json.mapper().nullNode()));
        node.put("createdAt", Json.timestamp(agent.createdAt()));
        node.put("updatedAt", Json.timestamp(agent.updatedAt()));
        return node;
    }

    public static ArrayNode renderAll(List<Agent> agents, Instant now) {
        ArrayNode array = Json.mapper().createArrayNode();
        agents.forEach(a -> array.add(render(a, now, Optional.empty())));
        return array;
    }
}
