package dev.warden.api.delegations;

import dev.warden.api.access.Access;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.Params;
import dev.warden.api.http.RequestReader;
import dev.warden.api.http.Responses;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.Delegation;
import dev.warden.authorizer.domain.DelegationId;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/** HTTP surface of delegations (SPEC: Delegations), mounted at {@code /delegations}. */
public final class DelegationRoutes implements DeclaredService {
    private final DelegationService delegations;
    private final long maxBodyBytes;

    public DelegationRoutes(DelegationService delegations, long maxBodyBytes) {
        this.delegations = delegations;
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
        Responses.json(
                res,
                Status.OK_200,
                DelegationJson.renderAll(delegations.list(
                        AuthFilter.principal(req),
                        Params.query(req, "fromAgent", AgentId::of),
                        Params.query(req, "toAgent", AgentId::of))));
    }

    private void revoke(ServerRequest req, ServerResponse res) {
        delegations.revoke(AuthFilter.principal(req), Params.path(req, "id", DelegationId::of));
        Responses.noContent(res);
    }
}
