package dev.warden.api.dashboard;

import dev.warden.api.access.Access;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.Responses;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/** {@code GET /dashboard/stats}: the {@link DashboardStats} the caller may see. */
public final class DashboardRoutes implements DeclaredService {
    private final DashboardStats stats;

    public DashboardRoutes(DashboardStats stats) {
        this.stats = stats;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/stats", Access.scope("dashboard:read"), this::stats);
    }

    private void stats(ServerRequest req, ServerResponse res) {
        Responses.json(res, Status.OK_200, stats.stats(AuthFilter.principal(req)));
    }
}
