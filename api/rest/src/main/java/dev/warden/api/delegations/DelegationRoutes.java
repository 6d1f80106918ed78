package dev.warden.api.delegations;

import dev.warden.api.access.Access;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.ListCursor;
import dev.warden.api.http.ListPaging;
import dev.warden.api.http.Params;
import dev.warden.api.http.RequestReader;
import dev.warden.api.http.Responses;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.Delegation;
import dev.warden.authorizer.domain.DelegationId;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** HTTP surface of delegations (SPEC: Delegations), mounted at {@code /delegations}. */
public final class DelegationRoutes implements DeclaredService {
    private static final Set<String> LIST_PARAMETERS = Set.of("fromAgent", "toAgent", "limit", "cursor");

    private final DelegationService delegations;
    private final ListCursor cursors;
    private final long maxBodyBytes;

    public DelegationRoutes(DelegationService delegations, ListCursor cursors, long maxBodyBytes) {
        this.delegations = delegations;
        this.cursors = cursors;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.post("/", Access.scope("delegations:write"), this::create)
                .get("/", Access.scope("delegations:read"), this::list)
                .delete("/{id}", Access.scope("delegations:write"), this::revoke);
    }

    private void create(ServerRequest req, ServerResponse res) {
        DelegationService.NewDelegation request =
                DelegationJson.parseCreate(RequestReader.readObject(req, maxBodyBytes));
        Delegation created = delegations.create(AuthFilter.principal(req), request);
        res.header("Location", "/delegations/" + created.id());
        Responses.json(res, Status.CREATED_201, DelegationJson.render(created));
    }

    private void list(ServerRequest req, ServerResponse res) {
        Params.only(req, LIST_PARAMETERS);
        Optional<AgentId> from = Params.query(req, "fromAgent", AgentId::of);
        Optional<AgentId> to = Params.query(req, "toAgent", AgentId::of);
        String list = "delegations:" + from.map(AgentId::value).orElse("") + ":"
                + to.map(AgentId::value).orElse("");
        Optional<ListPaging.Request> paged = ListPaging.requested(req, cursors, list);
        List<Delegation> found;
        if (paged.isPresent()) {
            ListPaging.Page<Delegation> page = delegations.page(AuthFilter.principal(req), from, to, paged.get());
            ListPaging.linkNext(req, res, cursors, paged.get(), page.next());
            found = page.items();
        } else {
            found = delegations.list(AuthFilter.principal(req), from, to);
        }
        Responses.json(res, Status.OK_200, DelegationJson.renderAll(found));
    }

    private void revoke(ServerRequest req, ServerResponse res) {
        delegations.revoke(AuthFilter.principal(req), Params.path(req, "id", DelegationId::of));
        Responses.noContent(res);
    }
}
