package dev.warden.api.console;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.warden.api.access.Access;
import dev.warden.api.access.Principal;
import dev.warden.api.agents.AgentService;
import dev.warden.api.audit.AuditQuery;
import dev.warden.api.audit.AuditRoutes;
import dev.warden.api.audit.AuditScope;
import dev.warden.api.audit.JdbcAuditReader;
import dev.warden.api.console.ConsoleRows.AuditRow;
import dev.warden.api.console.ConsoleRows.AuditSearch;
import dev.warden.api.console.ConsoleRows.DelegationRow;
import dev.warden.api.console.ConsoleRows.EntryView;
import dev.warden.api.delegations.DelegationService;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.NotFoundException;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.Params;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The audit pages: the search ({@code GET /audit}'s filters, paging and scope, through the same parser and
 * reader, with export links for the same search) and one entry's page (what was asked, the decision and its
 * reason, the redacted arguments as stored, and the delegation chain that led to the agent at that moment).
 */
final class AuditPages implements DeclaredService {
    /** An audit entry's id: {@code aud_} and the minted part (anything else is not one). */
    private static final Pattern ID = Pattern.compile("[a-z]{2,8}_[A-Za-z0-9_-]{1,64}");

    private final JdbcAuditReader audit;
    private final AgentService agents;
    private final DelegationService delegations;
    private final ConsoleSession session;
    private final ConsolePages pages;

    AuditPages(
            JdbcAuditReader audit,
            AgentService agents,
            DelegationService delegations,
            ConsoleSession session,
            ConsolePages pages) {
        this.audit = audit;
        this.agents = agents;
        this.delegations = delegations;
        this.session = session;
        this.pages = pages;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/audit", Access.open(), this::search).get("/audit/{id}", Access.open(), this::entry);
    }

    private void search(ServerRequest req, ServerResponse res) {
        Optional<ConsoleSession.Operator> user = session.signedIn(req, res);
        if (user.isEmpty()) {
            return;
        }
        AuditQuery query = AuditRoutes.parse(req, true);
        List<AuditRow> rows = audit.query(AuditScope.of(user.get().principal()), query).stream()
                .map(AuditRow::of)
                .toList();
        Map<String, String> filters = new LinkedHashMap<>();
        for (String name : List.of("agentId", "actions", "result", "since", "until")) {
            filters.put(name, req.query().first(name).orElse(""));
        }
        String kept = filterQuery(filters);
        int offset = query.offset();
        int limit = query.limit();
        Map<String, Object> params = session.params(req, res, user.get(), "audit");
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

    /** One entry: a 404 page for an id that is not one, not there, or not the caller's to see (no enumeration). */
    private void entry(ServerRequest req, ServerResponse res) {
        Optional<ConsoleSession.Operator> user = session.signedIn(req, res);
        if (user.isEmpty()) {
            return;
        }
        Principal caller = user.get().principal();
        String id = Params.path(req, "id", v -> v);
        AuditEntry entry = (ID.matcher(id).matches()
                        ? audit.find(AuditScope.of(caller), id)
                        : Optional.<AuditEntry>empty())
                .orElseThrow(() -> new NotFoundException(ErrorCode.NOT_FOUND, "no such audit entry"));
        Function<AgentId, Optional<String>> names = AgentPages.names(agents, caller);
        Optional<AgentId> agentId = agentId(entry.agentId());
        DelegationService.Chain chain = agentId.map(a -> delegations.chainInto(caller, a, entry.timestamp()))
                .orElse(new DelegationService.Chain(List.of(), 0));
        Map<String, Object> params = session.params(req, res, user.get(), "audit");
        params.put(
                "entry",
                new EntryView(
                        AuditRow.of(entry),
                        entry.userId().orElse(""),
                        entry.callerId(),
                        String.format(java.util.Locale.ROOT, "%.3f", entry.durationMs()),
                        entry.reasonDetail().orElse(""),
                        entry.callerIp().orElse(""),
                        entry.ip().orElse(""),
                        entry.userAgent().orElse(""),
                        arguments(entry.parameters()),
                        agentId.flatMap(names).isPresent(),
                        chain.hidden()));
        params.put(
                "graph",
                agentId.map(a -> ChainGraph.of(a, chain.links(), List.of(), names))
                        .orElse(new ChainGraph(List.of(), List.of(), 0, 0)));
        params.put(
                "chain",
                chain.links().stream()
                        .map(d -> DelegationRow.of(d, names, entry.timestamp()))
                        .toList());
        pages.send(res, Status.OK_200, "console/entry.jte", params);
    }

    private static Optional<AgentId> agentId(String value) {
        try {
            return Optional.of(AgentId.of(value));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** The arguments as stored (secrets already redacted when the decision was audited), indented. */
    private static String arguments(Map<String, Object> parameters) {
        try {
            return Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(parameters);
        } catch (JsonProcessingException e) {
            return parameters.toString();
        }
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
}
