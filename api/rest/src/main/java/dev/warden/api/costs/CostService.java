package dev.warden.api.costs;

import dev.warden.api.access.AccessPolicy;
import dev.warden.api.access.Principal;
import dev.warden.api.agents.AgentRepository;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.NotFoundException;
import dev.warden.api.events.EventOutbox;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.Ids;
import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.Json;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.runtime.db.Database;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Costs attributed to agents: each is a {@code cost.recorded} event, stored in the outbox in its own transaction
 * and published before the call returns; the pipeline sums costs against the agent's budget. Who may record: the
 * administrator, the agent's owner, or the agent itself ({@link AccessPolicy#mayActFor}).
 */
public final class CostService {
    /** A cost as asked for. */
    public record NewCost(String tool, long inputTokens, long outputTokens, BigDecimal costUsd) {}

    private final AgentRepository agents;
    private final Database db;
    private final EventOutbox outbox;
    private final InstantSource clock;

    public CostService(AgentRepository agents, Database db, EventOutbox outbox, InstantSource clock) {
        this.agents = agents;
        this.db = db;
        this.outbox = outbox;
        this.clock = clock;
    }

    /**
     * Records {@code cost} against agent {@code id} for {@code caller}: the record as answered and published.
     *
     * @throws NotFoundException {@code agent_not_found} for an agent the caller may not act for
     */
    public Map<String, Object> record(Principal caller, AgentId id, NewCost cost) {
        Agent agent = agents.find(id)
                .filter(a -> AccessPolicy.mayActFor(caller, a))
                .orElseThrow(() -> new NotFoundException(ErrorCode.AGENT_NOT_FOUND, "no such agent"));
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        Map<String, Object> record = new LinkedHashMap<>();
        record.put("id", Ids.mint("cst"));
        record.put("agentId", agent.id().value());
        record.put("tool", cost.tool());
        record.put("inputTokens", cost.inputTokens());
        record.put("outputTokens", cost.outputTokens());
        record.put("costUsd", cost.costUsd());
        record.put("recordedAt", Json.timestamp(now));
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("cost", record);
        data.put("actor", Map.of("id", caller.subjectId()));
        StreamEvent.Draft event = new StreamEvent.Draft(
                EventType.COST_RECORDED,
                now,
                data,
                Optional.of(agent.id().value()),
                Optional.of(agent.ownerId().value()));
        db.inTransaction(conn -> {
            EventOutbox.append(conn, event);
            return null;
        });
        outbox.flush();
        return record;
    }
}
