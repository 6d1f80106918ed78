package dev.warden.api.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.console.ConsoleRows.CostRow;
import dev.warden.api.console.ConsoleRows.Figures;
import dev.warden.api.console.ConsoleRows.HourBar;
import dev.warden.api.console.ConsoleRows.TopAgent;
import dev.warden.api.dashboard.DashboardStats;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.pipeline.dashboard.DecisionCounts;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The dashboard: {@code GET /dashboard}'s figures for what the user may see, the decisions of the last 24 hours
 * per hour, the top agents and the costs against budgets as charts drawn here (SVG, labels as text), and, from the
 * live event stream in the
 * page's script, decisions per second, denials by reason and the latest anomaly alerts.
 */
final class DashboardPage implements DeclaredService {
    static final int HOURS = 24;
    static final int CHART_HEIGHT = 120;
    static final int BAR = 22;

    private final DashboardStats stats;
    private final ConsoleSession session;
    private final ConsolePages pages;
    private final InstantSource clock;

    DashboardPage(DashboardStats stats, ConsoleSession session, ConsolePages pages, InstantSource clock) {
        this.stats = stats;
        this.session = session;
        this.pages = pages;
        this.clock = clock;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/dashboard", Access.open(), this::dashboard);
    }

    private void dashboard(ServerRequest req, ServerResponse res) {
        Optional<ConsoleSession.Operator> user = session.signedIn(req, res);
        if (user.isEmpty()) {
            return;
        }
        ObjectNode figures = stats.stats(user.get().principal());
        Map<String, Object> params = session.params(req, res, user.get(), "dashboard");
        params.put(
                "figures",
                new Figures(
                        figures.path("totalAgents").asLong(),
                        figures.path("activeAgents").asLong(),
                        figures.path("totalAuditEntries").asLong(),
                        figures.path("denialRateLast24h").asText()));
        params.put("hours", hours(stats.hourly(user.get().principal(), HOURS), clock.instant()));
        params.put("top", top(figures.path("topAgentsByCallCount")));
        params.put(
                "costs",
                stats.costs(user.get().principal()).stream().map(CostRow::of).toList());
        pages.send(res, Status.OK_200, "console/dashboard.jte", params);
    }

    static List<HourBar> hours(List<DecisionCounts> counts, Instant now) {
        long most = Math.max(
                1, counts.stream().mapToLong(DecisionCounts::calls).max().orElse(1));
        Instant first = now.truncatedTo(ChronoUnit.HOURS).minus(counts.size() - 1L, ChronoUnit.HOURS);
        List<HourBar> bars = new ArrayList<>();
        for (int i = 0; i < counts.size(); i++) {
            DecisionCounts c = counts.get(i);
            int callsHeight = (int) Math.round(c.calls() * (double) CHART_HEIGHT / most);
            int deniedHeight = (int) Math.round(c.denied() * (double) CHART_HEIGHT / most);
            bars.add(new HourBar(
                    first.plus(i, ChronoUnit.HOURS).atOffset(ZoneOffset.UTC).toLocalTime() + " UTC",
                    c.calls(),
                    c.denied(),
                    i * BAR,
                    CHART_HEIGHT - callsHeight,
                    callsHeight,
                    CHART_HEIGHT - deniedHeight,
                    deniedHeight));
        }
        return bars;
    }

    private static List<TopAgent> top(JsonNode rows) {
        long most = 1;
        for (JsonNode row : rows) {
            most = Math.max(most, row.path("callCount").asLong());
        }
        List<TopAgent> out = new ArrayList<>();
        for (JsonNode row : rows) {
            long calls = row.path("callCount").asLong();
            out.add(new TopAgent(
                    row.path("agentId").asText(),
                    row.path("name").asText(row.path("agentId").asText()),
                    calls,
                    (int) Math.max(2, Math.round(calls * 300.0 / most))));
        }
        return out;
    }
}
