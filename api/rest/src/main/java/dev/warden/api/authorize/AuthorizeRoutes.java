package dev.warden.api.authorize;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.RequestReader;
import dev.warden.api.http.Responses;
import dev.warden.api.ratelimit.ClientIp;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/**
 * {@code POST /authorize} (SPEC: Authorization): body {@code {agentId, action, resource, arguments?,
 * context?: {ip, userAgent}}}, answer 200 {@code {allowed, reason?, auditId}} (plus {@code retryAfter}
 * seconds for {@code RATE_LIMITED}); a denial is a 200 too.
 */
public final class AuthorizeRoutes implements DeclaredService {
    private final AuthorizationService service;
    private final ClientIp clientIp;
    private final long maxBodyBytes;

    public AuthorizeRoutes(AuthorizationService service, ClientIp clientIp, long maxBodyBytes) {
        this.service = service;
        this.clientIp = clientIp;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.post("/", Access.scope("authorize:write"), this::authorize);
    }

    private void authorize(ServerRequest req, ServerResponse res) {
        AuthorizationService.Request request =
                DecisionRequests.parse(RequestReader.readObject(req, maxBodyBytes), clientIp.text(req));
        AuthorizationService.Decision decision = service.decide(AuthFilter.principal(req), request);
        ObjectNode body = Json.mapper().createObjectNode().put("allowed", decision.allowed());
        decision.reason().ifPresent(r -> body.put("reason", r.name()));
        decision.retryAfterSeconds().ifPresent(s -> body.put("retryAfter", s));
        decision.approvalId().ifPresent(id -> body.put("approvalId", id));
        body.put("auditId", decision.auditId());
        Responses.json(res, Status.OK_200, body);
    }
}
