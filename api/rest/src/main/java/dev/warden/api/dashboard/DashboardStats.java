package dev.warden.api.dashboard;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.AccessPolicy;
import dev.warden.api.access.Principal;
import dev.warden.api.agents.AgentRepository;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.UserId;
import dev.warden.pipeline.contract.Json;
import dev.warden.pipeline.dashboard.DecisionCounts;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The dashboard statistics (SPEC: Dashboard statistics), for {@code GET /dashboard/stats} and the MCP tool
 * {@code dashboard_stats}. The admin sees the whole deployment; a user sees the same figures over the agents they
 * own. "Last 24 h" is the current clock hour and the 23 before it, from the pipeline's hourly windows.
 * {@code topAgentsByCallCount}: up to 10 {@code {agentId, name, callCount}}, most calls first (ties by agent id).
 */
public final class DashboardStats {
    private static final int TOP = 10;

    private final DashboardView view;
    private final AgentRepository agents;
    private final InstantSource clock;

    public DashboardStats(DashboardView view, AgentRepository agents, InstantSource clock) {
        this.view = view;
        this.agents = agents;
        this.clock = clock;
    }

    /** The dashboard statistics {@code caller} may see (their own agents, or all for the administrator). */
    public ObjectNode stats(Principal caller) {
        Optional<UserId> owner = AccessPolicy.dashboardOwner(caller);
        Instant now = clock.instant();
        Predicate<String> include = owner.map(this::ownedBy).orElse(id -> true);
        AgentRepository.Counts counts = agents.count(owner, now);
        long hour = now.getEpochSecond() / 3600;
        Map<String, DecisionCounts> last24h = view.perAgent(hour - 23, hour, include);
        DecisionCounts day = last24h.values().stream().reduce(DecisionCounts.ZERO, DecisionCounts::plus);

        ObjectNode body = Json.mapper()
                .createObjectNode()
                .put("totalAgents", counts.total())
                .put("activeAgents", counts.active())
                .put("totalAuditEntries", view.total(include).calls())
                .put("denialRateLast24h", denialRate(day));
        ArrayNode top = body.putArray("topAgentsByCallCount");
        last24h.entrySet().stream()
                .sorted(Comparator.<Map.Entry<String, DecisionCounts>>comparingLong(
                                e -> -e.getValue().calls())
                        .thenComparing(Map.Entry::getKey))
                .limit(TOP)
                .forEach(e -> top.addObject()
                        .put("agentId", e.getKey())
                        .put("name", name(e.getKey()))
                        .put("callCount", e.getValue().calls()));
        return body;
    }

    /** The decisions about {@code agent} in the current hour (UTC) so far; who may see it is the caller's to check. */
    public DecisionCounts thisHour(AgentId agent) {
        long hour = clock.instant().getEpochSecond() / 3600;
        return view.perAgent(hour, hour, agent.value()::equals).getOrDefault(agent.value(), DecisionCounts.ZERO);
    }

    /**
     * The decisions {@code caller} may see per hour over the last {@code hours} hours, oldest first (the current
     * hour last, counted so far).
     */
    public List<DecisionCounts> hourly(Principal caller, int hours) {
        Optional<UserId> owner = AccessPolicy.dashboardOwner(caller);
        Predicate<String> include = owner.map(this::ownedBy).orElse(id -> true);
        long hour = clock.instant().getEpochSecond() / 3600;
        List<DecisionCounts> out = new ArrayList<>(hours);
        for (long h = hour - hours + 1; h <= hour; h++) {
            out.add(view.perAgent(h, h, include).values().stream().reduce(DecisionCounts.ZERO, DecisionCounts::plus));
        }
        return out;
    }

    private Predicate<String> ownedBy(UserId owner) {
        Set<String> ids = agents
                .list(new AgentRepository.Filter(
                        Optional.of(owner), Optional.empty(), Optional.empty(), Optional.empty(), clock.instant()))
                .stream()
                .map(a -> a.id().value())
                .collect(Collectors.toSet());
        return ids::contains;
    }

    private String name(String agentId) {
        try {
            return agents.find(AgentId.of(agentId)).map(Agent::name).orElse(null);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    static double denialRate(DecisionCounts counts) {
        if (counts.calls() == 0) {
            return 0.0;
        }
        return BigDecimal.valueOf(counts.denied() * 100.0 / counts.calls())
                .setScale(2, RoundingMode.HALF_UP)
                .doubleValue();
    }
}
