package dev.warden.api.observe;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.Responses;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.List;

/**
 * {@code GET /observe/health}: 200 when every component of every started role is ready, 503 otherwise,
 * with {@code {"status":"UP|DEGRADED|DOWN","roles":[...],"components":{name:{"status","detail"}}}}. DEGRADED
 * (still 200: the process serves, so it stays in rotation) names a component that works but needs an
 * operator, such as a sink that keeps failing or falls behind; and
 * {@code GET /observe/live}: 200 while the process serves HTTP, whatever its dependencies (for liveness
 * probes, so an outage of Kafka or PostgreSQL makes pods unready, not restarted). Both public.
 */
public final class HealthRoutes implements DeclaredService {
    private final List<HealthCheck> checks;
    private final List<String> roles;

    public HealthRoutes(List<HealthCheck> checks, List<String> roles) {
        this.checks = List.copyOf(checks);
        this.roles = List.copyOf(roles);
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/health", Access.open(), this::health)
                .get(
                        "/live",
                        Access.open(),
                        (req, res) -> Responses.json(
                                res,
                                Status.OK_200,
                                Json.mapper().createObjectNode().put("status", "UP")));
    }

    private void health(ServerRequest req, ServerResponse res) {
        ObjectNode body = Json.mapper().createObjectNode();
        ObjectNode components = Json.mapper().createObjectNode();
        boolean allUp = true;
        boolean degraded = false;
        for (HealthCheck check : checks) {
            HealthCheck.Result result = safeCheck(check);
            allUp &= result.up();
            degraded |= result.degraded();
            components.putObject(check.name()).put("status", result.status()).put("detail", result.detail());
        }
        body.put("status", !allUp ? "DOWN" : degraded ? "DEGRADED" : "UP");
        roles.forEach(body.putArray("roles")::add);
        body.set("components", components);
        Responses.json(res, allUp ? Status.OK_200 : Status.SERVICE_UNAVAILABLE_503, body);
    }

    private static HealthCheck.Result safeCheck(HealthCheck check) {
        try {
            return check.check();
        } catch (RuntimeException e) {
            return HealthCheck.Result.down(e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }
}
