package dev.warden.api.console;

import dev.warden.api.access.Access;
import dev.warden.api.access.Principal;
import dev.warden.api.agents.AgentService;
import dev.warden.api.audit.AuditQuery;
import dev.warden.api.audit.AuditScope;
import dev.warden.api.audit.JdbcAuditReader;
import dev.warden.api.console.ConsoleRows.AgentRow;
import dev.warden.api.console.ConsoleRows.AuditRow;
import dev.warden.api.console.ConsoleRows.DelegationRow;
import dev.warden.api.console.ConsoleRows.HourUse;
import dev.warden.api.console.ConsoleRows.PermissionRow;
import dev.warden.api.dashboard.DashboardStats;
import dev.warden.api.delegations.DelegationService;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.NotFoundException;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.Params;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.Delegation;
import dev.warden.authorizer.domain.Permission;
import dev.warden.pipeline.dashboard.DecisionCounts;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The agents pages: the list, an agent's page (facts, permissions with their hourly limits and this hour's
 * decisions, the delegation chains in and out drawn as a graph, its latest decisions) and its suspend, resume,
 * rotate and revoke actions, each confirmed on a page of its own (a rotated token is shown once). Reads and actions
 * go through {@link AgentService} and {@link DelegationService}, so through the one access policy.
 */
final class AgentPages implements DeclaredService {
    private static final List<String> ACTIONS = List.of("suspend", "resume", "rotate", "revoke");
    /** Recent decisions shown on an agent's page. */
    private static final int RECENT = 20;

    private final AgentService agents;
    private final DelegationService delegations;
    private final JdbcAuditReader audit;
    private final DashboardStats dashboard;
    private final ConsoleSession session;
    private final ConsolePages pages;
    private final InstantSource clock;

    AgentPages(
            AgentService agents,
            DelegationService delegations,
            JdbcAuditReader audit,
            DashboardStats dashboard,
            ConsoleSession session,
            ConsolePages pages,
            InstantSource clock) {
        this.agents = agents;
        this.delegations = delegations;
        this.audit = audit;
        this.dashboard = dashboard;
        this.session = session;
        this.pages = pages;
        this.clock = clock;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/agents", Access.open(), this::list)
                .get("/agents/{id}", Access.open(), this::agent)
                .get("/agents/{id}/{action}", Access.open(), this::confirm)
                .post("/agents/{id}/{action}", Access.open(), this::act);
    }

    private void list(ServerRequest req, ServerResponse res) {
        Optional<ConsoleSession.Operator> user = session.signedIn(req, res);
        if (user.isEmpty()) {
            return;
        }
        Instant now = clock.instant();
        Map<String, Object> params = session.params(req, res, user.get(), "agents");
        params.put(
                "agents",
                agents
                        .list(
                                user.get().principal(),
                                new AgentService.Query(Optional.empty(), Optional.empty(), Optional.empty()))
                        .stream()
                        .map(a -> AgentRow.of(a, now))
                        .toList());
        pages.send(res, Status.OK_200, "console/agents.jte", params);
    }

    /** An agent's page: what it is, its permissions and their use this hour, its chains, its latest decisions. */
    private void agent(ServerRequest req, ServerResponse res) {
        Optional<ConsoleSession.Operator> user = session.signedIn(req, res);
        if (user.isEmpty()) {
            return;
        }
        Principal caller = user.get().principal();
        Instant now = clock.instant();
        Agent agent = agents.get(caller, Params.path(req, "id", AgentId::of));
        Function<AgentId, Optional<String>> names = names(agents, caller);
        List<Delegation> incoming =
                delegations.chainInto(caller, agent.id(), now).links();
        List<Delegation> outgoing = delegations.list(caller, Optional.of(agent.id()), Optional.empty());
        DecisionCounts hour = dashboard.thisHour(agent.id());
        AuditQuery recent = new AuditQuery(
                Optional.of(agent.id().value()),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                List.of(),
                Optional.empty(),
                RECENT,
                0);
        Map<String, Object> params = session.params(req, res, user.get(), "agents");
        params.put("agent", AgentRow.of(agent, now));
        params.put(
                "permissions",
                agent.permissions().stream().map(PermissionRow::of).toList());
        params.put(
                "hour",
                new HourUse(
                        hour.calls(),
                        hour.denied(),
                        agent.permissions().stream()
                                .filter(p -> p.constraints().maxCallsPerHour().isPresent())
                                .map(AgentPages::limit)
                                .toList()));
        params.put("graph", ChainGraph.of(agent.id(), incoming, outgoing, names));
        params.put(
                "incoming",
                incoming.stream().map(d -> DelegationRow.of(d, names, now)).toList());
        params.put(
                "outgoing",
                outgoing.stream().map(d -> DelegationRow.of(d, names, now)).toList());
        params.put(
                "decisions",
                audit.query(AuditScope.of(caller), recent).stream()
                        .map(AuditRow::of)
                        .toList());
        pages.send(res, Status.OK_200, "console/agent.jte", params);
    }

    private static String limit(Permission p) {
        return p.constraints().maxCallsPerHour().getAsLong() + " calls an hour: " + String.join(", ", p.actions())
                + " on " + p.resource();
    }

    /** An agent's name when {@code caller} may see it. */
    static Function<AgentId, Optional<String>> names(AgentService agents, Principal caller) {
        return id -> agents.find(caller, id).map(Agent::name);
    }

    private void confirm(ServerRequest req, ServerResponse res) {
        Optional<ConsoleSession.Operator> user = session.signedIn(req, res);
        if (user.isEmpty()) {
            return;
        }
        String action = action(req);
        Agent agent = agents.get(user.get().principal(), Params.path(req, "id", AgentId::of));
        Map<String, Object> params = session.params(req, res, user.get(), "agents");
        params.put("agent", AgentRow.of(agent, clock.instant()));
        params.put("action", action);
        pages.send(res, Status.OK_200, "console/confirm.jte", params);
    }

    private void act(ServerRequest req, ServerResponse res) {
        Optional<ConsoleSession.Operator> user = session.formFrom(req, res);
        if (user.isEmpty()) {
            return;
        }
        AgentId id = Params.path(req, "id", AgentId::of);
        switch (action(req)) {
            case "suspend" -> agents.suspend(user.get().principal(), id);
            case "resume" -> agents.resume(user.get().principal(), id);
            case "revoke" -> agents.revoke(user.get().principal(), id);
            default -> {
                // The new token is shown this once, on a page never cached; the old one stops working at once.
                AgentService.Issued issued = agents.rotate(user.get().principal(), id);
                Map<String, Object> params = session.params(req, res, user.get(), "agents");
                params.put("agent", AgentRow.of(issued.agent(), clock.instant()));
                params.put("token", issued.token());
                pages.send(res, Status.OK_200, "console/token.jte", params);
                return;
            }
        }
        ConsolePages.redirect(res, Status.SEE_OTHER_303, "/console/agents/" + id.value());
    }

    private static String action(ServerRequest req) {
        String action = Params.path(req, "action", v -> v);
        if (!ACTIONS.contains(action)) {
            throw new NotFoundException(ErrorCode.NOT_FOUND, "no such action: suspend, resume, rotate or revoke");
        }
        return action;
    }
}
