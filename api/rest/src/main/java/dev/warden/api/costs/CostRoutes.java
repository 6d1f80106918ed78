package dev.warden.api.costs;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.access.Principal;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.JsonInput;
import dev.warden.api.http.Params;
import dev.warden.api.http.RequestReader;
import dev.warden.api.http.Responses;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.math.BigDecimal;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code POST /agents/:id/costs} {@code {tool, inputTokens, outputTokens, costUsd}}: checks the body and has
 * {@link CostService} record the cost. Answers 201 with the record.
 */
public final class CostRoutes implements DeclaredService {
    private static final Set<String> FIELDS = Set.of("tool", "inputTokens", "outputTokens", "costUsd");
    private static final BigDecimal MAX_COST = new BigDecimal("1000000");
    /** Decimal places a cost may have. */
    private static final int MAX_COST_SCALE = 12;
    /** Most tokens one cost record may count (a quadrillion: far beyond any model call, far below wrapping). */
    private static final long MAX_TOKENS = 1_000_000_000_000_000L;

    private final CostService costs;
    private final long maxBodyBytes;

    public CostRoutes(CostService costs, long maxBodyBytes) {
        this.costs = costs;
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
        Map<String, Object> record = costs.record(
                caller, id, new CostService.NewCost(tool.orElseThrow(), inputTokens, outputTokens, cost.orElseThrow()));
        ObjectNode body = Json.mapper().valueToTree(record);
        Responses.json(res, Status.CREATED_201, body);
    }
}
