package dev.warden.api.oauth.token;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.OAuthException;
import dev.warden.api.oauth.ProtectedResources;
import dev.warden.api.oauth.TokenGrant;
import dev.warden.api.oauth.agents.AgentClientRepository;
import dev.warden.api.oauth.agents.AgentDirectory;
import dev.warden.api.oauth.agents.AgentScopes;
import dev.warden.api.oauth.clients.GrantTypes;
import dev.warden.api.oauth.clients.OAuthClient;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.Delegation;
import dev.warden.authorizer.domain.DelegationId;
import dev.warden.authorizer.engine.ChainWalk;
import dev.warden.authorizer.engine.CompiledPolicy;
import dev.warden.authorizer.engine.EffectiveGrant;
import dev.warden.authorizer.engine.GrantOrigin;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code grant_type=client_credentials} (RFC 6749 section 4.4) for service agents bound to an OAuth client: the
 * client is the agent (its id, its token as secret). The token's subject is the agent ({@code sub_kind: agent}),
 * for {@code resource} (the REST API by default), with the asked-for scopes (each must be the resource's and held
 * by the agent, {@link AgentScopes}) or, when none are asked for, every scope of the resource the agent holds.
 * It ends with the agent's current version (a rotation, suspension, or its client unbound or bound again, ends it)
 * and any delegation a scope comes through; it has no row of its own (D185). No refresh token.
 */
final class ClientCredentialsGrant implements TokenGrant {
    private final AgentDirectory directory;
    private final ProtectedResources resources;
    private final AgentTokenIssuer issuer;
    private final InstantSource clock;

    ClientCredentialsGrant(
            AgentDirectory directory, ProtectedResources resources, AgentTokenIssuer issuer, InstantSource clock) {
        this.directory = directory;
        this.resources = resources;
        this.issuer = issuer;
        this.clock = clock;
    }

    @Override
    public String type() {
        return GrantTypes.CLIENT_CREDENTIALS;
    }

    /** Not for registered clients: only a bound service agent's derived client has it. */
    @Override
    public boolean registrable() {
        return false;
    }

    @Override
    public ObjectNode respond(OAuthClient client, Map<String, String> form, String ip) {
        return TokenResponses.access(issue(client, form, ip));
    }

    AccessTokens.Issued issue(OAuthClient client, Map<String, String> form, String ip) {
        if (!AgentClientRepository.REGISTERED_VIA.equals(client.registeredVia())) {
            throw new OAuthException(
                    ErrorCode.OAUTH_UNAUTHORIZED_CLIENT,
                    "client_credentials is for service agents "
                            + "bound to an OAuth client (POST /agents/{id}/oauth-client)");
        }
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        // The resolution /authorize uses (cached, dropped on every agent or delegation change): a token carries what
        // a decision at this moment would allow, and its chain is checked again on every use.
        ChainWalk.Result resolved = directory.policy(AgentId.of(client.clientId()));
        Agent agent = resolved.agent()
                .filter(a -> a.isActive(now))
                .orElseThrow(() -> OAuthException.because(
                        ErrorCode.OAUTH_INVALID_CLIENT, ErrorCode.AGENT_INACTIVE, "the agent is not active"));
        ProtectedResources.Resource resource = resources.resolve(Optional.ofNullable(form.get("resource")));
        CompiledPolicy policy = resolved.policy();
        Optional<String> requested = Optional.ofNullable(form.get("scope")).filter(s -> !s.isBlank());
        List<String> candidates = requested
                .map(s -> ProtectedResources.scopeFor(resource, Optional.of(s)))
                .orElse(resource.scopes());
        List<String> granted = new ArrayList<>();
        Set<String> through = new LinkedHashSet<>();
        for (String scope : candidates) {
            Optional<EffectiveGrant> grant = preferOwn(AgentScopes.grantsFor(policy, scope));
            if (grant.isEmpty()) {
                if (requested.isPresent()) {
                    throw OAuthException.invalidScope("the agent's permissions do not cover " + scope);
                }
                continue;
            }
            granted.add(scope);
            if (grant.get().origin() instanceof GrantOrigin.Delegated d) {
                through.add(d.delegation().value());
            }
        }
        if (granted.isEmpty()) {
            throw OAuthException.invalidScope("the agent's permissions cover no scope of " + resource.uri());
        }
        List<Optional<Instant>> limits = new ArrayList<>(List.of(agent.expiresAt()));
        through.forEach(
                id -> limits.add(directory.delegation(DelegationId.of(id)).flatMap(Delegation::expiresAt)));
        // No row (D185): the token carries the agent's version and its delegations, checked on each use against
        // the state every instance caches and drops on every agent or delegation change.
        AgentGrantRepository.AgentGrant grant = new AgentGrantRepository.AgentGrant(
                AgentGrantRepository.newStatelessId(),
                GrantTypes.CLIENT_CREDENTIALS,
                client.clientId(),
                agent.id().value(),
                "agent",
                Optional.empty(),
                List.of(agent.id().value()),
                List.of(),
                List.copyOf(through),
                String.join(" ", granted),
                resource.uri(),
                now,
                issuer.expiry(now, limits));
        return issuer.issue(
                grant,
                AccessTokens.SubjectKind.AGENT,
                List.of(),
                new AccessTokens.Chain(
                        List.of(new AccessTokens.AgentVersion(agent.id().value(), TokenValidity.version(agent))),
                        List.copyOf(through),
                        Optional.empty()),
                client,
                ip);
    }

    /** The agent's own grant when it has one, else the first delegated one. */
    private static Optional<EffectiveGrant> preferOwn(List<EffectiveGrant> grants) {
        return grants.stream()
                .filter(g -> g.origin() instanceof GrantOrigin.Direct)
                .findFirst()
                .or(() -> grants.stream().findFirst());
    }
}
