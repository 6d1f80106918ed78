package dev.warden.api.delegations;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.agents.PermissionJson;
import dev.warden.api.http.JsonInput;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.Delegation;
import dev.warden.authorizer.domain.Ids;
import dev.warden.authorizer.domain.Permission;
import dev.warden.pipeline.contract.Json;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** JSON forms of delegations (SPEC: Delegation) and of the create request. */
public final class DelegationJson {
    private static final Set<String> CREATE_FIELDS =
            Set.of("fromAgent", "toAgent", "permissions", "expiresAt", "maxDepth");

    private DelegationJson() {}

    static DelegationService.NewDelegation parseCreate(ObjectNode body) {
        JsonInput in = JsonInput.of(body, CREATE_FIELDS);
        Optional<AgentId> from = in.requiredValue("fromAgent", Ids.MAX_LENGTH, AgentId::of);
        Optional<AgentId> to = in.requiredValue("toAgent", Ids.MAX_LENGTH, AgentId::of);
        List<Permission> permissions = in.requiredObjectArray("permissions", PermissionJson.MAX_PERMISSIONS)
                .map(items -> PermissionJson.parse(in, "permissions", items))
                .orElse(List.of());
        if (in.raw("permissions").map(p -> p.isArray() && p.isEmpty()).orElse(false)) {
            in.error("permissions", "must not be empty");
        }
        Optional<Instant> expiresAt = in.optionalInstant("expiresAt");
        int maxDepth = (int) in.optionalLong("maxDepth", 1, DelegationService.MAX_DEPTH_LIMIT)
                .orElse(DelegationService.DEFAULT_MAX_DEPTH);
        in.validate();
        return new DelegationService.NewDelegation(
                from.orElseThrow(), to.orElseThrow(), permissions, expiresAt, maxDepth);
    }

    public static ObjectNode render(Delegation d) {
        ObjectNode node = Json.mapper()
                .createObjectNode()
                .put("id", d.id().value())
                .put("fromAgent", d.fromAgent().value())
                .put("toAgent", d.toAgent().value());
        node.set("permissions", PermissionJson.render(d.permissions()));
        node.put("depth", d.depth())
                .put("maxDepth", d.maxDepth())
                .put("expiresAt", d.expiresAt().map(Json::timestamp).orElse(null))
                .put("createdAt", Json.timestamp(d.createdAt()));
        return node;
    }

    public static ArrayNode renderAll(List<Delegation> delegations) {
        ArrayNode array = Json.mapper().createArrayNode();
        delegations.forEach(d -> array.add(render(d)));
        return array;
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> permissionsAsData(List<Permission> permissions) {
        return Json.mapper().convertValue(PermissionJson.render(permissions), List.class);
    }
}
