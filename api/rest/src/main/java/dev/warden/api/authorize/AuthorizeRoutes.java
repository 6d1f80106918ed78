package dev.warden.api.authorize;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.JsonInput;
import dev.warden.api.http.RequestReader;
import dev.warden.api.http.Responses;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.Ids;
import dev.warden.authorizer.domain.ResourcePattern;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code POST /authorize} (SPEC: Authorization): body {@code {agentId, action, resource, arguments?,
 * context?: {ip, userAgent}}}, answer 200 {@code {allowed, reason?, auditId}} (plus {@code retryAfter}
 * seconds for {@code RATE_LIMITED}); a denial is a 200 too.
 */
public final class AuthorizeRoutes implements DeclaredService {
    private static final Set<String> FIELDS = Set.of("agentId", "action", "resource", "arguments", "context");
    private static final Set<String> CONTEXT_FIELDS = Set.of("ip", "userAgent");
    private static final int MAX_ARGUMENTS_BYTES = 64 * 1024;

    private final AuthorizationService service;
    private final long maxBodyBytes;

    public AuthorizeRoutes(AuthorizationService service, long maxBodyBytes) {
        this.service = service;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.post("/", Access.scope("authorize:write"), this::authorize);
    }

    private void authorize(ServerRequest req, ServerResponse res) {
        AuthorizationService.Request request = parse(RequestReader.readObject(req, maxBodyBytes));
        AuthorizationService.Decision decision = service.decide(AuthFilter.principal(req), request);
        ObjectNode body = Json.mapper().createObjectNode().put("allowed", decision.allowed());
        decision.reason().ifPresent(r -> body.put("reason", r.name()));
        decision.retryAfterSeconds().ifPresent(s -> body.put("retryAfter", s));
        body.put("auditId", decision.auditId());
        Responses.json(res, Status.OK_200, body);
    }

    public static AuthorizationService.Request parse(ObjectNode body) {
        JsonInput in = JsonInput.of(body, FIELDS);
        Optional<AgentId> agentId = in.requiredValue("agentId", Ids.MAX_LENGTH, AgentId::of);
        Optional<String> action = in.requiredString("action", 128);
        Optional<String> resource = in.requiredString("resource", ResourcePattern.MAX_LENGTH);
        resource.flatMap(ResourcePattern::resourceProblem).ifPresent(p -> in.error("resource", p));
        Map<String, Object> arguments = in.optionalObject("arguments", MAX_ARGUMENTS_BYTES).orElse(Map.of());
        Optional<String> ip = Optional.empty();
        Optional<String> userAgent = Optional.empty();
        Optional<com.fasterxml.jackson.databind.JsonNode> context = in.raw("context");
        if (context.isPresent()) {
            if (context.get() instanceof ObjectNode object) {
                JsonInput ctx = in.nested(object, "context", CONTEXT_FIELDS);
                ip = ctx.optionalString("ip", 64);
                userAgent = ctx.optionalString("userAgent", 512);
            } else {
                in.error("context", "must be a JSON object");
            }
        }
        in.validate();
        return new AuthorizationService.Request(agentId.orElseThrow(), action.orElseThrow(), resource.orElseThrow(),
                arguments, ip, userAgent);
    }
}
