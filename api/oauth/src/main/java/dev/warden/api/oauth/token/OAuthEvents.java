package dev.warden.api.oauth.token;

import dev.warden.api.oauth.clients.OAuthClient;
import dev.warden.pipeline.contract.CleanText;
import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.Json;
import dev.warden.pipeline.contract.StreamEvent;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The events of the token endpoint (documented in docs/events.md): {@code auth.signin} when a client signs a user
 * in with an authorization code, {@code auth.failed} when a token request is refused. Never a token, code or secret.
 */
final class OAuthEvents {
    private OAuthEvents() {}

    /** {@code auth.signin}: {@code {"user": {id}, "client": {id, name}, "grant": {id, scope, resource}, "method", "ip"}}. */
    static StreamEvent.Draft granted(
            GrantRepository.Grant grant, OAuthClient client, String grantType, String ip, Instant now) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("user", Map.of("id", grant.userId()));
        data.put("client", Map.of("id", client.clientId(), "name", client.clientName()));
        data.put("grant", Map.of("id", grant.id(), "scope", grant.scope(), "resource", grant.resource()));
        data.put("method", "oauth_" + grantType);
        data.put("ip", ip);
        return new StreamEvent.Draft(EventType.AUTH_SIGNIN, now, data, Optional.empty(), Optional.of(grant.userId()));
    }

    /**
     * {@code auth.signin} of a token issued to agents: {@code {"agent": {id}, "actors": [ids, current first] (token
     * exchange), "user": {id} (token exchange), "client": {id, name}, "grant": {id, scope, resource, expiresAt},
     * "method": "oauth_client_credentials" | "oauth_token_exchange", "ip"}}. The event's agent is the acting agent.
     */
    static StreamEvent.Draft agentGranted(AgentGrantRepository.AgentGrant grant, OAuthClient client, String ip) {
        Map<String, Object> data = new LinkedHashMap<>();
        String actor = grant.agentIds().getLast();
        data.put("agent", Map.of("id", actor));
        boolean exchange = grant.subjectKind().equals("user");
        if (exchange) {
            data.put("user", Map.of("id", grant.subject()));
            data.put("actors", grant.agentIds().reversed());
        }
        data.put("client", Map.of("id", client.clientId(), "name", client.clientName()));
        Map<String, Object> g = new LinkedHashMap<>();
        g.put("id", grant.id());
        g.put("scope", grant.scope());
        g.put("resource", grant.resource());
        g.put("expiresAt", Json.timestamp(grant.expiresAt()));
        data.put("grant", g);
        data.put("method", "oauth_" + grant.grantType());
        data.put("ip", ip);
        return new StreamEvent.Draft(
                EventType.AUTH_SIGNIN,
                grant.createdAt(),
                data,
                Optional.of(actor),
                exchange ? Optional.of(grant.subject()) : Optional.empty());
    }

    /** {@code auth.failed}: {@code {"client": {id}, "reason": the OAuth error, "method", "ip"}}. */
    static StreamEvent.Draft failed(Optional<String> clientId, String error, String grantType, String ip, Instant now) {
        Map<String, Object> data = new LinkedHashMap<>();
        clientId.ifPresent(id ->
                data.put("client", Map.of("id", CleanText.scrub(id.length() > 200 ? id.substring(0, 200) : id))));
        data.put("reason", error);
        data.put(
                "method", "oauth_" + CleanText.scrub(grantType.length() > 64 ? grantType.substring(0, 64) : grantType));
        data.put("ip", ip);
        return new StreamEvent.Draft(EventType.AUTH_FAILED, now, data, Optional.empty(), Optional.empty());
    }
}
