package dev.warden.api.agents;

import dev.warden.api.access.Principal;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.TenantId;
import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.Json;
import dev.warden.pipeline.contract.StreamEvent;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code data} of agent lifecycle events (documented in docs/events.md):
 * {@code {"agent": {id, ownerId, tenantId, name, type, status, expiresAt, createdAt, updatedAt},
 * "actor": {"kind", "id"}, "changed"?: [field, ...]}}. Never a token, never metadata.
 */
final class AgentEvents {
    private AgentEvents() {}

    static StreamEvent.Draft of(EventType type, Agent agent, Principal actor, Instant now) {
        return of(type, agent, actor, now, List.of());
    }

    static StreamEvent.Draft of(EventType type, Agent agent, Principal actor, Instant now, List<String> changed) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("agent", summary(agent, now));
        data.put("actor", Map.of("kind", actor.kind(), "id", actor.subjectId()));
        if (!changed.isEmpty()) {
            data.put("changed", changed);
        }
        return new StreamEvent.Draft(
                type,
                now,
                data,
                Optional.of(agent.id().value()),
                Optional.of(agent.ownerId().value()));
    }

    private static Map<String, Object> summary(Agent agent, Instant now) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("id", agent.id().value());
        view.put("ownerId", agent.ownerId().value());
        view.put("tenantId", agent.tenantId().map(TenantId::value).orElse(null));
        view.put("name", agent.name());
        view.put("type", agent.type().wireName());
        view.put("status", agent.status(now).wireName());
        view.put("expiresAt", agent.expiresAt().map(Json::timestamp).orElse(null));
        view.put("createdAt", Json.timestamp(agent.createdAt()));
        view.put("updatedAt", Json.timestamp(agent.updatedAt()));
        view.put("budget", agent.budget().map(BudgetJson::asData).orElse(null));
        return view;
    }
}
