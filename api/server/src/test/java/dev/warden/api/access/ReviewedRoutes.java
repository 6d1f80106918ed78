package dev.warden.api.access;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The reviewed access of every route Warden mounts: {@link RouteAccessIT} fails when a mounted route is missing
 * here or declares something else, {@link AccessMatrixRoutingIT} sends every kind of caller to each, and
 * {@code contract.OpenApiDocumentTest} requires the OpenAPI document to describe exactly these routes.
 */
public final class ReviewedRoutes {
    /** The reviewed access of every route: "METHOD pattern" -> declaration. */
    public static final Map<String, Access> EXPECTED = expected();

    private ReviewedRoutes() {}

    private static Map<String, Access> expected() {
        Map<String, Access> m = new LinkedHashMap<>();
        m.put("GET /observe/health", Access.open());
        m.put("GET /observe/live", Access.open());
        m.put("GET /observe/metrics", Access.open());
        m.put("GET /openapi.json", Access.open());
        for (String path : List.of("/agents", "/agents/{id}")) {
            m.put("GET " + path, Access.scope("agents:read"));
        }
        m.put("POST /agents", Access.scope("agents:write"));
        m.put("PATCH /agents/{id}", Access.scope("agents:write"));
        m.put("DELETE /agents/{id}", Access.scope("agents:write"));
        for (String op : List.of("rotate", "suspend", "resume")) {
            m.put("POST /agents/{id}/" + op, Access.scope("agents:write"));
        }
        m.put("POST /agents/{id}/costs", Access.scope("costs:write"));
        m.put("POST /auth/tokens", Access.scope(Scopes.ALL));
        m.put("GET /auth/tokens", Access.scope(Scopes.ALL));
        m.put("GET /auth/tokens/current", Access.anyCaller());
        m.put("DELETE /auth/tokens/current", Access.anyCaller());
        m.put("DELETE /auth/tokens/{id}", Access.scope(Scopes.ALL));
        m.put("POST /delegations", Access.scope("delegations:write"));
        m.put("GET /delegations", Access.scope("delegations:read"));
        m.put("DELETE /delegations/{id}", Access.scope("delegations:write"));
        m.put("POST /authorize", Access.scope("authorize:write"));
        m.put("POST /access/v1/evaluation", Access.scope("authorize:write"));
        m.put("POST /access/v1/evaluations", Access.scope("authorize:write"));
        m.put("POST /access/v1/search/subject", Access.scope("authorize:write"));
        m.put("POST /access/v1/search/resource", Access.scope("authorize:write"));
        m.put("POST /access/v1/search/action", Access.scope("authorize:write"));
        m.put("GET /.well-known/authzen-configuration", Access.open());
        // The Shared Signals transmitter (docs/shared-signals.md): public metadata; every caller manages only the
        // streams it created (AccessPolicy.signalsOwner), a receiver with its client-credentials token.
        m.put("GET /.well-known/ssf-configuration", Access.open());
        m.put("POST /ssf/streams", Access.scope("ssf:write"));
        m.put("GET /ssf/streams", Access.scope("ssf:read"));
        m.put("PATCH /ssf/streams", Access.scope("ssf:write"));
        m.put("PUT /ssf/streams", Access.scope("ssf:write"));
        m.put("DELETE /ssf/streams", Access.scope("ssf:write"));
        m.put("GET /ssf/status", Access.scope("ssf:read"));
        m.put("POST /ssf/status", Access.scope("ssf:write"));
        m.put("POST /ssf/subjects/add", Access.scope("ssf:write"));
        m.put("POST /ssf/subjects/remove", Access.scope("ssf:write"));
        m.put("POST /ssf/verify", Access.scope("ssf:write"));
        m.put("POST /ssf/poll/{streamId}", Access.scope("ssf:read"));
        m.put("GET /approvals", Access.scope("approvals:read"));
        m.put("GET /approvals/{id}", Access.scope("approvals:read"));
        m.put("POST /approvals/{id}/approve", Access.scope("approvals:write"));
        m.put("POST /approvals/{id}/deny", Access.scope("approvals:write"));
        m.put("GET /audit", Access.scope("audit:read"));
        m.put("GET /audit/export", Access.scope("audit:read"));
        m.put("GET /audit/stats", Access.administrator("the audit statistics"));
        m.put("GET /dashboard/stats", Access.scope("dashboard:read"));
        m.put("GET /admin/v1/dead-letters", Access.administrator("dead letters"));
        m.put("GET /admin/dead-letters", Access.administrator("dead letters"));
        m.put("GET /admin/v1/sinks", Access.administrator("audit sinks"));
        m.put("POST /admin/v1/sinks/{name}/pause", Access.administrator("audit sinks"));
        m.put("POST /admin/v1/sinks/{name}/resume", Access.administrator("audit sinks"));
        m.put("POST /admin/v1/sinks/{name}/replay", Access.administrator("audit sinks"));
        m.put("GET /admin/v1/doctor", Access.administrator("the security doctor"));
        m.put("GET /auth/admin/doctor", Access.administrator("the security doctor"));
        m.put("* /events/stream", Access.selfAuthenticating());
        m.put("POST /webhooks", Access.scope("webhooks:write"));
        m.put("GET /webhooks", Access.scope("webhooks:read"));
        m.put("GET /webhooks/{id}", Access.scope("webhooks:read"));
        m.put("DELETE /webhooks/{id}", Access.scope("webhooks:write"));
        m.put("POST /auth/sign-up", Access.open());
        m.put("POST /auth/sign-in", Access.open());
        m.put("POST /auth/sign-out", Access.session());
        m.put("POST /auth/change-username", Access.session());
        m.put("GET /auth/session", Access.session());
        m.put("POST /auth/change-password", Access.session());
        m.put("GET /auth/sessions", Access.session());
        m.put("DELETE /auth/sessions/{id}", Access.session());
        m.put("POST /auth/sessions/revoke-others", Access.session());
        m.put("GET /auth/email", Access.session());
        m.put("PUT /auth/email", Access.session());
        m.put("POST /auth/email/verify", Access.open());
        m.put("GET /auth/email/verify", Access.open());
        m.put("POST /auth/password-reset/request", Access.open());
        m.put("GET /auth/password-reset", Access.open());
        m.put("POST /auth/password-reset/complete", Access.open());
        m.put("POST /auth/magic-link", Access.open());
        m.put("GET /auth/magic-link", Access.open());
        m.put("POST /auth/magic-link/verify", Access.open());
        m.put("POST /auth/email-otp", Access.open());
        m.put("POST /auth/email-otp/verify", Access.open());
        m.put("GET /auth/totp", Access.session());
        m.put("POST /auth/totp/enrol", Access.session());
        m.put("POST /auth/totp/confirm", Access.session());
        m.put("POST /auth/totp/verify", Access.open());
        m.put("DELETE /auth/totp", Access.session());
        m.put("GET /auth/passkeys", Access.session());
        m.put("POST /auth/passkeys/registration/options", Access.session());
        m.put("POST /auth/passkeys", Access.session());
        m.put("DELETE /auth/passkeys/{id}", Access.session());
        m.put("POST /auth/passkeys/sign-in/options", Access.open());
        m.put("POST /auth/passkeys/sign-in", Access.open());
        m.put("POST /auth/setup", Access.open());
        m.put("POST /auth/setup/complete", Access.session());
        m.put("POST /auth/admin-session", Access.session());
        // The authorization server: public documents; endpoints that authenticate their clients themselves
        // (registration gate, client authentication, PKCE) or send browsers to sign in.
        for (String doc : List.of(
                "/oauth-authorization-server",
                "/oauth-authorization-server/*",
                "/openid-configuration",
                "/oauth-protected-resource",
                "/oauth-protected-resource/*")) {
            m.put("GET /.well-known" + doc, Access.open());
        }
        for (String prefix : List.of("/mcp", "/oauth")) {
            m.put("POST " + prefix + "/register", Access.open());
            m.put("GET " + prefix + "/authorize", Access.open());
            m.put("POST " + prefix + "/token", Access.open());
        }
        m.put("GET /oauth/login", Access.open());
        m.put("POST /oauth/login", Access.open());
        m.put("POST /oauth/totp", Access.open());
        m.put("POST /oauth/passkey", Access.open());
        // The console's pages find the session from the cookie themselves (a missing one is a redirect to sign in).
        m.put("GET /console", Access.open());
        m.put("GET /console/feed", Access.open());
        m.put("GET /console/agents", Access.open());
        m.put("GET /console/audit", Access.open());
        m.put("GET /console/agents/{id}", Access.open());
        m.put("GET /console/agents/{id}/{action}", Access.open());
        m.put("POST /console/agents/{id}/{action}", Access.open());
        m.put("GET /console/assets/{name}", Access.open());
        m.put("POST /console/sign-out", Access.open());
        m.put("GET /console/dashboard", Access.open());
        m.put("GET /console/audit/{id}", Access.open());
        m.put("GET /console/delegations", Access.open());
        m.put("GET /console/approvals", Access.open());
        m.put("POST /console/approvals/{id}/{decision}", Access.open());
        m.put("GET /console/delegations/{id}/revoke", Access.open());
        m.put("POST /console/delegations/{id}/revoke", Access.open());
        m.put("GET /console/webhooks", Access.open());
        m.put("POST /console/administrator", Access.open());
        m.put("POST /console/administrator/end", Access.open());
        m.put("GET /console/health", Access.open());
        m.put("GET /console/organizations", Access.open());
        m.put("GET /console/organizations/{orgID}", Access.open());
        m.put("GET /console/organizations/{orgID}/agents", Access.open());
        m.put("POST /console/organizations/{orgID}/members/{userID}/role", Access.open());
        m.put("POST /console/webhooks", Access.open());
        m.put("GET /console/webhooks/{id}/delete", Access.open());
        m.put("GET /console/webhooks/{id}", Access.open());
        m.put("POST /console/webhooks/{id}/disable", Access.open());
        m.put("POST /console/webhooks/{id}/enable", Access.open());
        m.put("POST /console/webhooks/{id}/delete", Access.open());
        m.put("GET /oauth/assets/passkey.js", Access.open());
        m.put("GET /oauth/consent", Access.open());
        m.put("POST /oauth/consent", Access.open());
        m.put("POST /oauth/revoke", Access.open());
        m.put("POST /oauth/introspect", Access.open());
        m.put("GET /oauth/jwks", Access.open());
        // Device grant (RFC 8628): the client authenticates itself; the verification page checks the session and
        // its CSRF token itself and sends a browser without a session to the login page.
        m.put("POST /auth/device/code", Access.open());
        m.put("POST /oauth/bc-authorize", Access.open());
        m.put("GET /auth/device", Access.open());
        m.put("POST /auth/device/verify", Access.open());
        // Binding a service agent to an OAuth client: the agent's owner or the administrator.
        m.put("POST /agents/{id}/oauth-client", Access.scope("agents:write"));
        m.put("GET /agents/{id}/oauth-client", Access.scope("agents:read"));
        m.put("DELETE /agents/{id}/oauth-client", Access.scope("agents:write"));
        // Warden's MCP endpoint: an OAuth access token for it (or a Warden credential) with the mcp scope.
        m.put("POST /mcp", Access.scope(Scopes.MCP));
        m.put("GET /mcp", Access.scope(Scopes.MCP));
        m.put("DELETE /mcp", Access.scope(Scopes.MCP));
        // Organizations (docs/organizations.md): the scope gates the token; the caller's role in the path's
        // organization gates the action (AccessPolicy.requireInOrganization).
        Access orgRead = Access.scope("organizations:read");
        Access orgWrite = Access.scope("organizations:write");
        String org = "/admin/v1/organizations/{orgID}";
        m.put("POST /admin/v1/organizations", orgWrite);
        m.put("GET /admin/v1/organizations", orgRead);
        m.put("GET " + org, orgRead);
        m.put("GET /admin/v1/active-organization", orgRead);
        m.put("PUT /admin/v1/active-organization", orgWrite);
        m.put("GET " + org + "/members", orgRead);
        m.put("POST " + org + "/members", orgWrite);
        m.put("PATCH " + org + "/members/{userID}", orgWrite);
        m.put("DELETE " + org + "/members/{userID}", orgWrite);
        m.put("GET " + org + "/roles", orgRead);
        m.put("POST " + org + "/roles", orgWrite);
        m.put("DELETE " + org + "/roles/{role}", orgWrite);
        m.put("GET " + org + "/agents", orgRead);
        m.put("GET " + org + "/agents/{agentID}", orgRead);
        m.put("POST " + org + "/agents/{agentID}/{action}", orgWrite);
        m.put("GET " + org + "/delegations", orgRead);
        m.put("GET " + org + "/delegations/{delegationID}", orgRead);
        m.put("POST " + org + "/delegations/{delegationID}/{action}", orgWrite);
        // The account routes (mounted when warden.server.account-routes is on): a signed-in session only.
        m.put("GET /account/agents", Access.session());
        m.put("GET /account/agents/{id}", Access.session());
        m.put("DELETE /account/agents/{id}", Access.session());
        m.put("GET /account/delegations", Access.session());
        m.put("DELETE /account/delegations/{id}", Access.session());
        return m;
    }
}
