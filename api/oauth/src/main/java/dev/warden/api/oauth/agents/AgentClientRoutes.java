package dev.warden.api.oauth.agents;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.errors.ConflictException;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.FieldError;
import dev.warden.api.errors.NotFoundException;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.Params;
import dev.warden.api.http.Responses;
import dev.warden.api.oauth.Issuer;
import dev.warden.api.oauth.clients.OAuthClient;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.AgentType;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * Binding a {@code service} agent to an OAuth client, under {@code /agents}: {@code POST /{id}/oauth-client}
 * binds (201, or 200 when it already was) and answers the client ({@code client_id} is the agent id, the secret
 * is the agent's token, {@code client_secret_basic}); {@code GET} shows it; {@code DELETE} unbinds (204). Who may:
 * the agent's owner or the administrator ({@code agents:write} to change, {@code agents:read} to look).
 */
public final class AgentClientRoutes implements DeclaredService {
    private static final String PATH = "/{id}/oauth-client";

    private final ManagedAgents agents;
    private final AgentClientRepository clients;
    private final Issuer issuer;
    private final InstantSource clock;

    public AgentClientRoutes(ManagedAgents agents, AgentClientRepository clients, Issuer issuer, InstantSource clock) {
        this.agents = agents;
        this.clients = clients;
        this.issuer = issuer;
        this.clock = clock;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.post(PATH, Access.scope("agents:write"), this::bind)
                .get(PATH, Access.scope("agents:read"), this::show)
                .delete(PATH, Access.scope("agents:write"), this::unbind);
    }

    private void bind(ServerRequest req, ServerResponse res) {
        Agent agent = agents.manageable(AuthFilter.principal(req), id(req));
        Instant now = clock.instant();
        if (!agent.isActive(now)) {
            throw new ConflictException(
                    ErrorCode.AGENT_INACTIVE,
                    "the agent is " + agent.status(now).wireName(),
                    List.of(new FieldError("id", "is " + agent.status(now).wireName())));
        }
        if (agent.type() != AgentType.SERVICE) {
            throw new ConflictException(
                    ErrorCode.AGENT_NOT_SERVICE,
                    "only service agents can use client credentials",
                    List.of(new FieldError("type", "is " + agent.type().wireName() + ", not service")));
        }
        boolean created = clients.bind(agent.id().value(), now.truncatedTo(ChronoUnit.MILLIS));
        if (created) {
            agents.clientBindingChanged(AuthFilter.principal(req), agent.id());
        }
        Instant boundAt = clients.boundAt(agent.id().value()).orElse(now);
        Responses.json(res, created ? Status.CREATED_201 : Status.OK_200, body(agent, boundAt));
    }

    private void show(ServerRequest req, ServerResponse res) {
        Agent agent = agents.manageable(AuthFilter.principal(req), id(req));
        Instant boundAt = clients.boundAt(agent.id().value())
                .orElseThrow(
                        () -> new NotFoundException(ErrorCode.NOT_FOUND, "this agent is not bound to an OAuth client"));
        Responses.json(res, Status.OK_200, body(agent, boundAt));
    }

    private void unbind(ServerRequest req, ServerResponse res) {
        Agent agent = agents.manageable(AuthFilter.principal(req), id(req));
        if (clients.unbind(agent.id().value())) {
            agents.clientBindingChanged(AuthFilter.principal(req), agent.id());
        }
        res.status(Status.NO_CONTENT_204).send();
    }

    private ObjectNode body(Agent agent, Instant boundAt) {
        ObjectNode body = Json.mapper()
                .createObjectNode()
                .put("client_id", agent.id().value())
                .put("agentId", agent.id().value())
                .put("token_endpoint", issuer.value() + "/oauth/token")
                .put("token_endpoint_auth_method", OAuthClient.BASIC)
                // The secret is the agent's own token: never shown here, replaced by POST /agents/{id}/rotate.
                .put("client_secret_source", "agent_token");
        AgentClientRepository.GRANT_TYPES.forEach(body.putArray("grant_types")::add);
        body.put("createdAt", Json.timestamp(boundAt));
        return body;
    }

    private static AgentId id(ServerRequest req) {
        return Params.path(req, "id", AgentId::of);
    }
}
