package dev.warden.api.account;

import dev.warden.api.access.Access;
import dev.warden.api.agents.AgentJson;
import dev.warden.api.agents.AgentService;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.delegations.DelegationJson;
import dev.warden.api.delegations.DelegationService;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.Params;
import dev.warden.api.http.Responses;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.AgentStatus;
import dev.warden.authorizer.domain.AgentType;
import dev.warden.authorizer.domain.DelegationId;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.InstantSource;
import java.util.Optional;

/**
 * The signed-in user's own agents and delegations, for an account page: {@code /account/agents} and
 * {@code /account/delegations} (SPEC: Further HTTP routes), mounted when {@code warden.server.account-routes} is on
 * (off by default). A session only, never an API token, OAuth token or agent token: a leaked token cannot use
 * them. They read and revoke; creating agents stays on {@code /agents}. Payloads in docs/organizations.md.
 */
public final class AccountRoutes implements DeclaredService {
    private static final Access SESSION = Access.session();

    private final AgentService agents;
    private final DelegationService delegations;
    private final InstantSource clock;

    public AccountRoutes(AgentService agents, DelegationService delegations, InstantSource clock) {
        this.agents = agents;
        this.delegations = delegations;
        this.clock = clock;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/agents", SESSION, this::listAgents)
                .get("/agents/{id}", SESSION, this::getAgent)
                .delete("/agents/{id}", SESSION, this::revokeAgent)
                .get("/delegations", SESSION, this::listDelegations)
                .delete("/delegations/{id}", SESSION, this::revokeDelegation);
    }

    private void listAgents(ServerRequest req, ServerResponse res) {
        AgentService.Query query = new AgentService.Query(
                Params.queryEnum(req, "status", AgentStatus.class),
                Params.queryEnum(req, "type", AgentType.class),
                Optional.empty());
        Responses.json(
                res,
                Status.OK_200,
                AgentJson.renderAll(agents.list(AuthFilter.principal(req), query), clock.instant()));
    }

    private void getAgent(ServerRequest req, ServerResponse res) {
        Responses.json(
                res,
                Status.OK_200,
                AgentJson.render(
                        agents.get(AuthFilter.principal(req), Params.path(req, "id", AgentId::of)),
                        clock.instant(),
                        Optional.empty()));
    }

    private void revokeAgent(ServerRequest req, ServerResponse res) {
        agents.revoke(AuthFilter.principal(req), Params.path(req, "id", AgentId::of));
        Responses.noContent(res);
    }

    private void listDelegations(ServerRequest req, ServerResponse res) {
        Responses.json(
                res,
                Status.OK_200,
                DelegationJson.renderAll(
                        delegations.list(AuthFilter.principal(req), Optional.empty(), Optional.empty())));
    }

    private void revokeDelegation(ServerRequest req, ServerResponse res) {
        delegations.revoke(AuthFilter.principal(req), Params.path(req, "id", DelegationId::of));
        Responses.noContent(res);
    }
}
