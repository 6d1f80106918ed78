package dev.warden.api.costs;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.access.AccessPolicy;
import dev.warden.api.access.Principal;
import dev.warden.api.agents.AgentRepository;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.db.Database;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.NotFoundException;
import dev.warden.api.events.EventOutbox;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.JsonInput;
import dev.warden.api.http.Params;
import dev.warden.api.http.RequestReader;
import dev.warden.api.http.Responses;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.Ids;
import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.Json;
import dev.warden.pipeline.contract.StreamEvent;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code POST /agents/:id/costs} {@code {tool, inputTokens, outputTokens, costUsd}}: attributes a cost to an
 * agent and emits {@code cost.recorded} (through the outbox); the pipeline sums costs against the agent's
 * budget. Who may record: the admin, the agent's owner, or the agent itself. Answers 201 with the record.
 */
public final class CostRoutes implements DeclaredService {
    private static final Set<String> FIELDS = Set.of("tool", "inputTokens", "outputTokens", "costUsd");
    private static final BigDecimal MAX_COST = new BigDecimal("1000000");
    /** Decimal places a cost may have. */
    private static final int MAX_COST_SCALE = 12;
    /** Most tokens one cost record may count (a quadrillion: far beyond any model call, far below wrapping). */
    private static final long MAX_TOKENS = 1_000_000_000_000_000L;

    private final AgentRepository agents;
    private final Database db;
    private final EventOutbox outbox;
    private final InstantSource clock;
    private final long maxBodyBytes;

    public CostRoutes(AgentRepository agents, Database db, EventOutbox outbox, InstantSource clock, long maxBodyBytes) {
        this.agents = agents;
        this.db = db;
        this.outbox = outbox;
        this.clock = clock;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.post("/{id}/costs", Access.scope("costs:write"), this::record);
    }

    private void record(ServerRequest req, ServerResponse res) {
        Principal caller = AuthFilter.principal(req);
        AgentId id = Params.path(req, "id", AgentId::of);
        JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes), FIELDS);
        Optional<String> tool = in.requiredString("tool", 200);
        long inputTokens = in.optionalLong("inputTokens", 0, MAX_TOKENS).orElse(0);
        long outputTokens = in.optionalLong("outputTokens", 0, MAX_TOKENS).orElse(0);
        Optional<BigDecimal> cost = in.optionalDecimal("costUsd", BigDecimal.ZERO, MAX_COST, MAX_COST_SCALE);
        if (!in.has("costUsd") || in.isNull("costUsd")) {
            in.error("costUsd", "is required: a number from 0 to 1000000");
        }
        in.validate();
        Agent agent = agents.find(id).filter(a -> AccessPolicy.mayActFor(caller, a))
                .orElseThrow(() -> new NotFoundException(ErrorCode.AGENT_NOT_FOUND, "no such agent"));
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        Map<String, Object> record = new LinkedHashMap<>();
        record.put("id", Ids.mint("cst"));
        record.put("agentId", agent.id().value());
        record.put("tool", tool.orElseThrow());
        record.put("inputTokens", inputTokens);
        record.put("outputTokens", outputTokens);
        record.put("costUsd", cost.orElseThrow());
        record.put("recordedAt", Json.timestamp(now));
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("cost", record);
        data.put("actor", Map.of("id", caller.subjectId()));
        StreamEvent.Draft event = new StreamEvent.Draft(EventType.COST_RECORDED, now, data,
                Optional.of(agent.id().value()), Optional.of(agent.ownerId().value()));
        db.inTransaction(conn -> {
            EventOutbox.append(conn, event);
            return null;
        });
        outbox.flush();
        ObjectNode body = Json.mapper().valueToTree(record);
        Responses.json(res, Status.CREATED_201, body);
    }
}
