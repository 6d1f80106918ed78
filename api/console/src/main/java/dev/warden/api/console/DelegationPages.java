package dev.warden.api.console;

import dev.warden.api.access.Access;
import dev.warden.api.agents.AgentService;
import dev.warden.api.console.ConsoleRows.DelegationRow;
import dev.warden.api.delegations.DelegationService;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.Params;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.Delegation;
import dev.warden.authorizer.domain.DelegationId;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The delegations page: the active chains the user may see (those of which they own the source or the target), and
 * revoking one (confirmed on a page of its own; the chains derived from it end with it), through
 * {@link DelegationService} and so through the one access policy.
 */
final class DelegationPages implements DeclaredService {
    private final DelegationService delegations;
    private final AgentService agents;
    private final ConsoleSession session;
    private final ConsolePages pages;
    private final InstantSource clock;

    DelegationPages(
            DelegationService delegations,
            AgentService agents,
            ConsoleSession session,
            ConsolePages pages,
            InstantSource clock) {
        this.delegations = delegations;
        this.agents = agents;
        this.session = session;
        this.pages = pages;
        this.clock = clock;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/delegations", Access.open(), this::list)
                .get("/delegations/{id}/revoke", Access.open(), this::confirm)
                .post("/delegations/{id}/revoke", Access.open(), this::revoke);
    }

    private void list(ServerRequest req, ServerResponse res) {
        Optional<ConsoleSession.Operator> user = session.signedIn(req, res);
        if (user.isEmpty()) {
            return;
        }
        Instant now = clock.instant();
        Function<AgentId, Optional<String>> names =
                AgentPages.names(agents, user.get().principal());
        Map<String, Object> params = session.params(req, res, user.get(), "delegations");
        params.put(
                "delegations",
                delegations.list(user.get().principal(), Optional.empty(), Optional.empty()).stream()
                        .map(d -> DelegationRow.of(d, names, now))
                        .toList());
        pages.send(res, Status.OK_200, "console/delegations.jte", params);
    }

    private void confirm(ServerRequest req, ServerResponse res) {
        Optional<ConsoleSession.Operator> user = session.signedIn(req, res);
        if (user.isEmpty()) {
            return;
        }
        Delegation delegation = delegations.get(user.get().principal(), Params.path(req, "id", DelegationId::of));
        Map<String, Object> params = session.params(req, res, user.get(), "delegations");
        params.put(
                "delegation",
                DelegationRow.of(delegation, AgentPages.names(agents, user.get().principal()), clock.instant()));
        pages.send(res, Status.OK_200, "console/revokeDelegation.jte", params);
    }

    private void revoke(ServerRequest req, ServerResponse res) {
        Optional<ConsoleSession.Operator> user = session.formFrom(req, res);
        if (user.isEmpty()) {
            return;
        }
        delegations.revoke(user.get().principal(), Params.path(req, "id", DelegationId::of));
        ConsolePages.redirect(res, Status.SEE_OTHER_303, "/console/delegations");
    }
}
