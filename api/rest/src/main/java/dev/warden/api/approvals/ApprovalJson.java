package dev.warden.api.approvals;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.pipeline.contract.Json;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The JSON form of approval requests, and the data of their stream events. */
final class ApprovalJson {
    private ApprovalJson() {}

    static ObjectNode render(Approval a) {
        ObjectNode node = Json.mapper().createObjectNode();
        node.put("id", a.id());
        node.put("agentId", a.agentId());
        node.put("ownerId", a.ownerId());
        node.put("action", a.action());
        node.put("resource", a.resource());
        node.set("arguments", Json.mapper().valueToTree(a.arguments()));
        node.put("status", a.status().wireName());
        node.put("approvers", a.approvers().wireName());
        node.put("approverScope", a.approverScope());
        ArrayNode delegations = node.putArray("delegations");
        a.delegations().forEach(delegations::add);
        if (a.validFor().isPresent()) {
            node.put("validFor", a.validFor().get().toString());
        } else {
            node.put("validFor", "once");
        }
        node.put("requestedAt", Json.timestamp(a.requestedAt()));
        node.put("expiresAt", Json.timestamp(a.expiresAt()));
        node.put("decidedBy", a.decidedBy().orElse(null));
        node.put("decidedAt", a.decidedAt().map(Json::timestamp).orElse(null));
        node.put("note", a.note().orElse(null));
        node.put("grantedUntil", a.grantedUntil().map(Json::timestamp).orElse(null));
        node.put("usedAt", a.usedAt().map(Json::timestamp).orElse(null));
        return node;
    }

    static ArrayNode renderAll(List<Approval> approvals) {
        ArrayNode array = Json.mapper().createArrayNode();
        approvals.forEach(a -> array.add(render(a)));
        return array;
    }

    /** The data of {@code approval.requested}, {@code approval.approved} and {@code approval.denied}. */
    static Map<String, Object> eventData(Approval a) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("approvalId", a.id());
        data.put("agentId", a.agentId());
        data.put("action", a.action());
        data.put("resource", a.resource());
        data.put("status", a.status().wireName());
        data.put("approvers", a.approvers().wireName());
        data.put("expiresAt", Json.timestamp(a.expiresAt()));
        a.decidedBy().ifPresent(v -> data.put("decidedBy", v));
        a.note().ifPresent(v -> data.put("note", v));
        a.grantedUntil().ifPresent(v -> data.put("grantedUntil", Json.timestamp(v)));
        return data;
    }
}
