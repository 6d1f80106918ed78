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
    private final SpendView spend;
    private final AgentRepository agents;
    private final InstantSource clock;

    public DashboardStats(DashboardView view, SpendView spend, AgentRepository agents, InstantSource clock) {
        this.view = view;
        this.spend = spend;
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

    /**
     * One budgeted agent's spend in its budget's current period (UTC day or month): zero when its latest cost fell
     * in an earlier one.
     */
    public record Cost(String agentId, String name, BigDecimal spentUsd, BigDecimal maxCostUsd, String period) {}

    /** The costs against budgets of the agents {@code caller} may see that have a budget, the most spent first. */
    public List<Cost> costs(Principal caller) {
        Optional<UserId> owner = AccessPolicy.dashboardOwner(caller);
        Instant now = clock.instant();
        java.time.LocalDate today = java.time.LocalDate.ofInstant(now, java.time.ZoneOffset.UTC);
        List<Cost> out = new ArrayList<>();
        for (Agent agent : agents.list(
                new AgentRepository.Filter(owner, Optional.empty(), Optional.empty(), Optional.empty(), now))) {
            if (agent.budget().isEmpty()) {
                continue;
            }
            String current = agent.budget().get().period().wireName().equals("month")
                    ? today.toString().substring(0, 7)
                    : today.toString();
            BigDecimal spent = spend.of(agent.id().value())
                    .filter(s -> s.periodKey().equals(current))
                    .map(SpendView.Spend::spentUsd)
                    .orElse(BigDecimal.ZERO);
            out.add(new Cost(
                    agent.id().value(),
                    agent.name(),
                    spent,
                    agent.budget().get().maxCostUsd(),
                    agent.budget().get().period().wireName()));
        }
        out.sort(Comparator.comparing(Cost::spentUsd).reversed().thenComparing(Cost::agentId));
        return out;
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
