package dev.warden.api.console;

import dev.warden.api.access.Access;
import dev.warden.api.access.Principal;
import dev.warden.api.agents.AgentService;
import dev.warden.api.agents.PermissionJson;
import dev.warden.api.audit.AuditQuery;
import dev.warden.api.audit.AuditRoutes;
import dev.warden.api.audit.AuditScope;
import dev.warden.api.audit.JdbcAuditReader;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.NotFoundException;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.Params;
import dev.warden.api.http.RequestReader;
import dev.warden.api.oauth.authorize.Pages;
import dev.warden.api.ratelimit.ClientIp;
import dev.warden.api.users.SessionCookies;
import dev.warden.api.users.UserService;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.pipeline.contract.AuditEntry;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The console's pages under {@code /console}: the live feed, the agents, an agent's page with its suspend, resume,
 * rotate and revoke actions (each confirmed on a page of its own; a rotated token is shown once), and the audit
 * search. Every page needs a signed-in session (the session cookie of the users' sign-in);
 * without one the browser goes to the login page and comes back. Reads and actions go through {@link AgentService}
 * and so through the one access policy: a user sees and acts on their own agents, the administrator on all. Forms
 * carry the login pages' double-submit CSRF token. Open at the filter, like the OAuth pages: the session is found
 * from the cookie here, so that a missing one is a redirect, not a JSON 401.
 */
public final class ConsoleRoutes implements DeclaredService {
    static final String HOME = "/console/feed";
    private static final List<String> ACTIONS = List.of("suspend", "resume", "rotate", "revoke");
    /** Recent decisions shown on an agent's page. */
    private static final int RECENT = 20;

    private final AgentService agents;
    private final JdbcAuditReader audit;
    private final UserService users;
    private final SessionCookies cookies;
    private final ClientIp clientIp;
    private final Pages forms;
    private final ConsolePages pages;
    private final InstantSource clock;
    private final long maxBodyBytes;

    public ConsoleRoutes(
            AgentService agents,
            JdbcAuditReader audit,
            UserService users,
            SessionCookies cookies,
            ClientIp clientIp,
            Pages forms,
            ConsolePages pages,
            InstantSource clock,
            long maxBodyBytes) {
        this.agents = agents;
        this.audit = audit;
        this.users = users;
        this.cookies = cookies;
        this.clientIp = clientIp;
        this.forms = forms;
        this.pages = pages;
        this.clock = clock;
        this.maxBodyBytes = maxBodyBytes;
    }

    /** One row of the agents page. */
    public record AgentRow(String id, String name, String type, String status, String owner) {}

    /** One permission of an agent, for its page. */
    public record PermissionRow(String resource, String actions, String constraints) {}

    /** One row of the audit search. */
    public record AuditRow(
            String id, String time, String agentId, String action, String resource, String result, String reason) {}

    /** The audit search's filters as sent (shown again in the form) and the links it offers. */
    public record AuditSearch(
            String agentId,
            String actions,
            String result,
            String since,
            String until,
            String query,
            String previous,
            String next) {}

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/", Access.open(), (req, res) -> ConsolePages.redirect(res, Status.FOUND_302, HOME))
                .get("/feed", Access.open(), this::feed)
                .get("/agents", Access.open(), this::agents)
                .get("/audit", Access.open(), this::audit)
                .get("/agents/{id}", Access.open(), this::agent)
                .get("/agents/{id}/{action}", Access.open(), this::confirm)
                .post("/agents/{id}/{action}", Access.open(), this::act)
                .post("/sign-out", Access.open(), this::signOut);
    }

    private void feed(ServerRequest req, ServerResponse res) {
        Optional<Principal.User> user = signedIn(req, res);
        if (user.isEmpty()) {
            return;
        }
        pages.send(res, Status.OK_200, "console/feed.jte", Map.of("page", "feed", "csrf", forms.csrfToken(req, res)));
    }

    private void agents(ServerRequest req, ServerResponse res) {
        Optional<Principal.User> user = signedIn(req, res);
        if (user.isEmpty()) {
            return;
        }
        List<AgentRow> rows =
                agents
                        .list(user.get(), new AgentService.Query(Optional.empty(), Optional.empty(), Optional.empty()))
                        .stream()
                        .map(this::row)
                        .toList();
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("page", "agents");
        params.put("csrf", forms.csrfToken(req, res));
        params.put("agents", rows);
        pages.send(res, Status.OK_200, "console/agents.jte", params);
    }

    /** The audit search: {@code GET /audit}'s filters and paging, its scope (the caller's), and its exports. */
    private void audit(ServerRequest req, ServerResponse res) {
        Optional<Principal.User> user = signedIn(req, res);
        if (user.isEmpty()) {
            return;
        }
        AuditQuery query = AuditRoutes.parse(req, true);
        List<AuditRow> rows = audit.query(AuditScope.of(user.get()), query).stream()
                .map(ConsoleRoutes::auditRow)
                .toList();
        Map<String, String> filters = new LinkedHashMap<>();
        for (String name : List.of("agentId", "actions", "result", "since", "until")) {
            filters.put(name, req.query().first(name).orElse(""));
        }
        String kept = filterQuery(filters);
        int offset = query.offset();
        int limit = query.limit();
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("page", "audit");
        params.put("csrf", forms.csrfToken(req, res));
        params.put("entries", rows);
        params.put(
                "search",
                new AuditSearch(
                        filters.get("agentId"),
                        filters.get("actions"),
                        filters.get("result"),
                        filters.get("since"),
                        filters.get("until"),
                        kept,
                        offset == 0 ? "" : "/console/audit?" + withOffset(kept, Math.max(0, offset - limit)),
                        rows.size() < limit ? "" : "/console/audit?" + withOffset(kept, offset + limit)));
        pages.send(res, Status.OK_200, "console/audit.jte", params);
    }

    private static AuditRow auditRow(AuditEntry e) {
        return new AuditRow(
                e.id(),
                e.timestamp().toString(),
                e.agentId(),
                e.action(),
                e.resource(),
                e.result().wireName(),
                e.reason().orElse(""));
    }

    private static String filterQuery(Map<String, String> filters) {
        StringBuilder q = new StringBuilder();
        filters.forEach((k, v) -> {
            if (!v.isEmpty()) {
                q.append(q.isEmpty() ? "" : "&")
                        .append(k)
                        .append('=')
                        .append(URLEncoder.encode(v, StandardCharsets.UTF_8));
            }
        });
        return q.toString();
    }

    private static String withOffset(String query, int offset) {
        return query + (query.isEmpty() ? "" : "&") + "offset=" + offset;
    }

    /** An agent's page: what it is, its permissions, its recent decisions, and its actions. */
    private void agent(ServerRequest req, ServerResponse res) {
        Optional<Principal.User> user = signedIn(req, res);
        if (user.isEmpty()) {
            return;
        }
        Agent agent = agents.get(user.get(), Params.path(req, "id", AgentId::of));
        List<PermissionRow> permissions = agent.permissions().stream()
                .map(p -> new PermissionRow(
                        p.resource(),
                        String.join(", ", p.actions()),
                        PermissionJson.render(List.of(p))
                                .get(0)
                                .path("constraints")
                                .toString()))
                .toList();
        AuditQuery recent = new AuditQuery(
                Optional.of(agent.id().value()),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                List.of(),
                Optional.empty(),
                RECENT,
                0);
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("page", "agents");
        params.put("csrf", forms.csrfToken(req, res));
        params.put("agent", row(agent));
        params.put("permissions", permissions);
        params.put(
                "decisions",
                audit.query(AuditScope.of(user.get()), recent).stream()
                        .map(ConsoleRoutes::auditRow)
                        .toList());
        pages.send(res, Status.OK_200, "console/agent.jte", params);
    }

    private void confirm(ServerRequest req, ServerResponse res) {
        Optional<Principal.User> user = signedIn(req, res);
        if (user.isEmpty()) {
            return;
        }
        String action = action(req);
        Agent agent = agents.get(user.get(), Params.path(req, "id", AgentId::of));
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("page", "agents");
        params.put("agent", row(agent));
        params.put("action", action);
        params.put("csrf", forms.csrfToken(req, res));
        pages.send(res, Status.OK_200, "console/confirm.jte", params);
    }

    private void act(ServerRequest req, ServerResponse res) {
        Map<String, String> form = RequestReader.readForm(req, maxBodyBytes);
        Optional<Principal.User> user = signedIn(req, res);
        if (user.isEmpty()) {
            return;
        }
        if (!forms.csrfMatches(req, form)) {
            refused(res);
            return;
        }
        AgentId id = Params.path(req, "id", AgentId::of);
        switch (action(req)) {
            case "suspend" -> agents.suspend(user.get(), id);
            case "resume" -> agents.resume(user.get(), id);
            case "revoke" -> agents.revoke(user.get(), id);
            default -> {
                // The new token is shown this once, on a page never cached; the old one stops working at once.
                AgentService.Issued issued = agents.rotate(user.get(), id);
                Map<String, Object> params = new LinkedHashMap<>();
                params.put("page", "agents");
                params.put("csrf", forms.csrfToken(req, res));
                params.put("agent", row(issued.agent()));
                params.put("token", issued.token());
                pages.send(res, Status.OK_200, "console/token.jte", params);
                return;
            }
        }
        ConsolePages.redirect(res, Status.SEE_OTHER_303, "/console/agents/" + id.value());
    }

    /** Ends the session (CSRF token), clears its cookie and shows the login page. */
    private void signOut(ServerRequest req, ServerResponse res) {
        Map<String, String> form = RequestReader.readForm(req, maxBodyBytes);
        Optional<Principal.User> user = signedIn(req, res);
        if (user.isEmpty()) {
            return;
        }
        if (!forms.csrfMatches(req, form)) {
            refused(res);
            return;
        }
        users.signOut(user.get(), clientIp.text(req));
        cookies.clear(req, res);
        ConsolePages.redirect(
                res, Status.SEE_OTHER_303, "/oauth/login?return_to=" + URLEncoder.encode(HOME, StandardCharsets.UTF_8));
    }

    private void refused(ServerResponse res) {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("title", "Request refused");
        params.put("message", "This form expired or was sent from another site. Go back and try again.");
        pages.send(res, Status.FORBIDDEN_403, "console/error.jte", params);
    }

    private static String action(ServerRequest req) {
        String action = Params.path(req, "action", v -> v);
        if (!ACTIONS.contains(action)) {
            throw new NotFoundException(ErrorCode.NOT_FOUND, "no such action: suspend, resume, rotate or revoke");
        }
        return action;
    }

    private AgentRow row(Agent agent) {
        return new AgentRow(
                agent.id().value(),
                agent.name(),
                agent.type().wireName(),
                agent.status(clock.instant()).wireName(),
                agent.ownerId().value());
    }

    /** The signed-in user of this browser; else the browser is sent to sign in and come back, and empty. */
    private Optional<Principal.User> signedIn(ServerRequest req, ServerResponse res) {
        Optional<Principal.User> user = cookies.signedIn(req);
        if (user.isEmpty()) {
            String back = req.prologue().method().text().equals("GET")
                    ? req.prologue().uriPath().path()
                    : HOME;
            ConsolePages.redirect(
                    res, Status.FOUND_302, "/oauth/login?return_to=" + URLEncoder.encode(back, StandardCharsets.UTF_8));
        }
        return user;
    }
}
