package dev.warden.api.oauth.token;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.auth.TokenKind;
import dev.warden.api.auth.Tokens;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.OAuthException;
import dev.warden.api.oauth.ProtectedResources;
import dev.warden.api.oauth.TokenGrant;
import dev.warden.api.oauth.agents.AgentDirectory;
import dev.warden.api.oauth.agents.AgentScopes;
import dev.warden.api.oauth.clients.GrantTypes;
import dev.warden.api.oauth.clients.OAuthClient;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.Delegation;
import dev.warden.authorizer.domain.DelegationId;
import dev.warden.authorizer.engine.CompiledPolicy;
import dev.warden.authorizer.engine.EffectiveGrant;
import dev.warden.authorizer.engine.GrantOrigin;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * {@code grant_type=urn:ietf:params:oauth:grant-type:token-exchange} (RFC 8693): an agent (the actor, proven by
 * its own token) obtains a token to act for the subject of another token.
 * <ul>
 * <li>Subject token: a user's access token of this server, or a token already exchanged (an agent acting for a
 * user). Actor token: an agent's token ({@code wdn_agt_}). Both of type
 * {@code urn:ietf:params:oauth:token-type:access_token}.</li>
 * <li>A user delegates to their own agents: when the subject token has no actor, the actor must be owned by its
 * subject and its own permissions count. When it has one (agent A), the actor B must have an active delegation
 * from A, and only what those delegations pass on from what A used for the user counts (not A's unrelated
 * permissions); the token's delegation hops (agent-to-agent steps of its {@code act} chain) must not exceed the
 * {@code maxDepth} of any delegation the whole chain relies on ({@code chain_depth_exceeded}).</li>
 * <li>Scope: the subject token's scopes (or the asked-for subset) that the actor holds ({@link AgentScopes}).
 * Audience: {@code resource} or {@code audience} (the subject token's by default).</li>
 * <li>The token carries {@code act} (current actor outermost) and ends at the earliest of the agent-token
 * lifetime, the subject token's end, the agents' and the delegations' ends; it stops working as soon as any agent
 * of the chain is revoked, suspended or rotated, any delegation of it revoked, or the user's grant ended.</li>
 * </ul>
 * Failures follow RFC 8693 section 2.2.2 ({@code invalid_request}, or {@code invalid_scope} / {@code invalid_target})
 * with Warden's failure class in {@code warden_error}.
 */
final class TokenExchangeGrant implements TokenGrant {
    static final String ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";

    private final AccessTokens tokens;
    private final GrantRepository grants;
    private final TokenValidity validity;
    private final AgentDirectory directory;
    private final ProtectedResources resources;
    private final AgentTokenIssuer issuer;
    private final InstantSource clock;

    TokenExchangeGrant(
            AccessTokens tokens,
            GrantRepository grants,
            TokenValidity validity,
            AgentDirectory directory,
            ProtectedResources resources,
            AgentTokenIssuer issuer,
            InstantSource clock) {
        this.tokens = tokens;
        this.grants = grants;
        this.validity = validity;
        this.directory = directory;
        this.resources = resources;
        this.issuer = issuer;
        this.clock = clock;
    }

    /** What the actor may pass on in this hop: the scopes it holds and the delegations they come through. */
    private record Hop(Predicate<EffectiveGrant> counts, Map<String, Delegation> delegations) {}

    @Override
    public String type() {
        return GrantTypes.TOKEN_EXCHANGE;
    }

    @Override
    public ObjectNode respond(OAuthClient client, Map<String, String> form, String ip) {
        return TokenResponses.access(exchange(client, form, ip)).put("issued_token_type", ACCESS_TOKEN_TYPE);
    }

    AccessTokens.Issued exchange(OAuthClient client, Map<String, String> form, String ip) {
        Optional.ofNullable(form.get("requested_token_type"))
                .filter(t -> !t.equals(ACCESS_TOKEN_TYPE))
                .ifPresent(t -> {
                    throw OAuthException.invalidRequest("requested_token_type must be " + ACCESS_TOKEN_TYPE);
                });
        String subjectToken = AuthorizationCodeGrant.required(form, "subject_token");
        if (!ACCESS_TOKEN_TYPE.equals(form.get("subject_token_type"))) {
            throw refused(ErrorCode.SUBJECT_TOKEN_INVALID, "subject_token_type must be " + ACCESS_TOKEN_TYPE);
        }
        String actorToken = Optional.ofNullable(form.get("actor_token"))
                .orElseThrow(() ->
                        refused(ErrorCode.ACTOR_TOKEN_INVALID, "actor_token is required: the acting agent's token"));
        if (!ACCESS_TOKEN_TYPE.equals(form.get("actor_token_type"))) {
            throw refused(ErrorCode.ACTOR_TOKEN_INVALID, "actor_token_type must be " + ACCESS_TOKEN_TYPE);
        }
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        AccessTokens.Claims subject = tokens.verify(subjectToken)
                .orElseThrow(() -> refused(
                        ErrorCode.SUBJECT_TOKEN_INVALID,
                        "subject_token is not a valid, unexpired access token of this server"));
        if (subject.subjectKind() != AccessTokens.SubjectKind.USER) {
            throw refused(
                    ErrorCode.SUBJECT_TOKEN_INVALID,
                    "subject_token must be a user's token, or one an agent holds "
                            + "for a user (not an agent's client-credentials token)");
        }
        Optional<Parent> parent = parent(subject, now);
        if (!validity.isActive(subject, now)) {
            throw whyInactive(parent, now);
        }
        if (!actorToken.startsWith(TokenKind.AGENT.prefix())) {
            throw refused(ErrorCode.ACTOR_TOKEN_INVALID, "actor_token must be an agent's token (wdn_agt_...)");
        }
        byte[] actorHash = Tokens.hash(actorToken);
        Agent actor = directory
                .agentByTokenHash(actorHash)
                .orElseThrow(() -> refused(
                        ErrorCode.AGENT_NOT_FOUND,
                        "no agent holds this actor_token (unknown, or replaced by a rotation)"));
        if (!actor.isActive(now)) {
            throw refused(
                    ErrorCode.AGENT_INACTIVE,
                    "the acting agent " + actor.id() + " is "
                            + actor.status(now).wireName());
        }
        Hop hop = subject.actors().isEmpty()
                ? fromUser(subject, actor)
                : fromAgent(subject, parent, actor, subject.delegationHops() + 1, now);

        ProtectedResources.Resource target = target(form, subject);
        CompiledPolicy policy = directory.policy(actor.id()).policy();
        Optional<String> requested = Optional.ofNullable(form.get("scope")).filter(s -> !s.isBlank());
        List<String> candidates = new ArrayList<>();
        if (requested.isPresent()) {
            for (String s : ProtectedResources.scopeFor(target, requested)) {
                if (!subject.scopes().contains(s)) {
                    throw OAuthException.invalidScope("scope " + s + " is not in the subject token's scope");
                }
                candidates.add(s);
            }
        } else {
            subject.scopes().stream().filter(target.scopes()::contains).forEach(candidates::add);
        }
        List<String> granted = new ArrayList<>();
        Set<String> through = new LinkedHashSet<>();
        for (String scope : candidates) {
            Optional<EffectiveGrant> grant = AgentScopes.grantsFor(policy, scope).stream()
                    .filter(hop.counts())
                    .findFirst();
            if (grant.isEmpty()) {
                if (requested.isPresent()) {
                    throw OAuthException.invalidScope("agent " + actor.id() + " does not hold " + scope
                            + (hop.delegations().isEmpty()
                                    ? ""
                                    : " through delegations that pass on the subject " + "token's chain"));
                }
                continue;
            }
            granted.add(scope);
            if (grant.get().origin() instanceof GrantOrigin.Delegated d) {
                through.add(d.delegation().value());
            }
        }
        if (granted.isEmpty()) {
            throw OAuthException.invalidScope("agent " + actor.id() + " holds none of the subject token's scopes"
                    + (target.uri().equals(subject.audience()) ? "" : " for " + target.uri())
                    + (hop.delegations().isEmpty()
                            ? ""
                            : " through delegations that pass on the subject token's chain"));
        }
        List<Optional<Instant>> limits = new ArrayList<>(List.of(Optional.of(subject.expiresAt()), actor.expiresAt()));
        through.forEach(id -> limits.add(hop.delegations().get(id).expiresAt()));
        List<AccessTokens.AgentVersion> agents =
                new ArrayList<>(parent.map(Parent::agents).orElse(List.of()));
        agents.add(new AccessTokens.AgentVersion(actor.id().value(), TokenValidity.version(actor)));
        List<String> agentIds =
                agents.stream().map(AccessTokens.AgentVersion::id).toList();
        List<String> delegationIds =
                new ArrayList<>(parent.map(Parent::delegationIds).orElse(List.of()));
        delegationIds.addAll(through);
        Optional<String> root = parent.isPresent() ? parent.get().rootGrantId() : Optional.of(subject.grantId());
        // Not stored (D185): the grant names the issuance in its event; the token carries its chain.
        AgentGrantRepository.AgentGrant grant = new AgentGrantRepository.AgentGrant(
                AgentGrantRepository.newStatelessId(),
                "token_exchange",
                client.clientId(),
                subject.subject(),
                "user",
                root,
                agentIds,
                List.of(),
                delegationIds,
                String.join(" ", granted),
                target.uri(),
                now,
                issuer.expiry(now, limits));
        return issuer.issue(
                grant,
                AccessTokens.SubjectKind.USER,
                agentIds.reversed(),
                new AccessTokens.Chain(agents, delegationIds, root),
                client,
                ip);
    }

    /**
     * What an exchanged subject token carries forward (its agents with their versions, its delegations, the user's
     * grant it started from): from its signed chain, or from the grant row of a token issued before tokens stopped
     * having rows (its agents at their current versions: it was checked active a moment ago).
     */
    private record Parent(
            List<AccessTokens.AgentVersion> agents, List<String> delegationIds, Optional<String> rootGrantId) {}

    private Optional<Parent> parent(AccessTokens.Claims subject, Instant now) {
        if (subject.chain().isPresent()) {
            AccessTokens.Chain chain = subject.chain().get();
            return Optional.of(new Parent(chain.agents(), chain.delegations(), chain.rootGrant()));
        }
        if (!AgentGrantRepository.isAgentGrant(subject.grantId())) {
            return Optional.empty();
        }
        return grants.agentGrants()
                .find(subject.grantId())
                .map(row -> new Parent(
                        row.agentIds().stream()
                                .map(id -> new AccessTokens.AgentVersion(
                                        id,
                                        directory
                                                .agent(AgentId.of(id))
                                                .map(TokenValidity::version)
                                                .orElse(Instant.EPOCH)))
                                .toList(),
                        row.delegationIds(),
                        row.rootGrantId()));
    }

    /** A user's token: the actor must be the user's own agent, acting with its own permissions. */
    private static Hop fromUser(AccessTokens.Claims subject, Agent actor) {
        if (!actor.ownerId().value().equals(subject.subject())) {
            throw refused(
                    ErrorCode.DELEGATION_NOT_FOUND,
                    "agent " + actor.id() + " does not belong to the subject "
                            + "user; a user's token can only be exchanged by the user's own agents");
        }
        return new Hop(g -> g.origin() instanceof GrantOrigin.Direct, Map.of());
    }

    /**
     * An agent's token: the actor needs an active delegation from that agent, and the chain, one hop longer, must
     * stay within the {@code maxDepth} of every delegation it relies on: those the subject token already used and
     * the new one. Only grants the new delegation passes on from what the upstream agent used for the user count:
     * its own permissions when it acted straight for the user, else what reached it through the subject token's
     * delegations. What the upstream agent holds on its own account, or through unrelated delegations, is not the
     * user's to pass on.
     */
    private Hop fromAgent(AccessTokens.Claims subject, Optional<Parent> parent, Agent actor, int hops, Instant now) {
        AgentId upstream = AgentId.of(subject.actors().getFirst());
        List<Delegation> chain = parent.map(Parent::delegationIds).orElse(List.of()).stream()
                .map(id -> directory
                        .delegation(DelegationId.of(id))
                        .orElseThrow(() -> refused(
                                ErrorCode.DELEGATION_REVOKED,
                                "delegation " + id + " of the subject token's chain is gone")))
                .toList();
        for (Delegation used : chain) {
            if (used.maxDepth() < hops) {
                throw refused(
                        ErrorCode.CHAIN_DEPTH_EXCEEDED,
                        "this token would be " + hops + " delegation hops "
                                + "deep but delegation " + used.id() + " of the subject token's chain allows at most "
                                + used.maxDepth());
            }
        }
        List<Delegation> all = directory.delegationsBetween(upstream, actor.id());
        if (all.isEmpty()) {
            throw refused(
                    ErrorCode.DELEGATION_NOT_FOUND, "agent " + upstream + " has no delegation to agent " + actor.id());
        }
        List<Delegation> active = all.stream().filter(d -> d.isActive(now)).toList();
        if (active.isEmpty()) {
            throw refused(
                    ErrorCode.DELEGATION_REVOKED,
                    "every delegation from agent " + upstream + " to agent " + actor.id() + " is revoked or expired");
        }
        List<Delegation> deepEnough =
                active.stream().filter(d -> d.maxDepth() >= hops).toList();
        if (deepEnough.isEmpty()) {
            throw refused(
                    ErrorCode.CHAIN_DEPTH_EXCEEDED,
                    "this token would be " + hops + " delegation hops deep but "
                            + "the delegation from agent " + upstream + " allows at most "
                            + active.stream()
                                    .mapToInt(Delegation::maxDepth)
                                    .max()
                                    .orElse(0));
        }
        Map<String, Delegation> byId = new LinkedHashMap<>();
        deepEnough.forEach(d -> byId.put(d.id().value(), d));
        Set<GrantOrigin> usedUpstream = new HashSet<>();
        chain.stream()
                .filter(d -> d.toAgent().equals(upstream))
                .forEach(d -> usedUpstream.add(new GrantOrigin.Delegated(d.id(), upstream)));
        if (subject.actors().size() == 1) {
            usedUpstream.add(new GrantOrigin.Direct(upstream));
        }
        return new Hop(
                g -> g.origin() instanceof GrantOrigin.Delegated d
                        && byId.containsKey(d.delegation().value())
                        && g.source().filter(usedUpstream::contains).isPresent(),
                byId);
    }

    /** {@code resource} or {@code audience} (the same when both are sent), else the subject token's audience. */
    private ProtectedResources.Resource target(Map<String, String> form, AccessTokens.Claims subject) {
        Optional<String> resource = Optional.ofNullable(form.get("resource"));
        Optional<String> audience = Optional.ofNullable(form.get("audience"));
        if (resource.isPresent() && audience.isPresent() && !resource.get().equals(audience.get())) {
            throw OAuthException.invalidTarget("resource and audience name different resources");
        }
        return resources.resolve(Optional.of(resource.or(() -> audience).orElse(subject.audience())));
    }

    /** Why an exchanged subject token is no longer active: its chain's delegation, its agents, or else itself. */
    private OAuthException whyInactive(Optional<Parent> parent, Instant now) {
        if (parent.isPresent()) {
            for (String id : parent.get().delegationIds()) {
                if (directory
                        .delegation(DelegationId.of(id))
                        .filter(d -> d.isActive(now))
                        .isEmpty()) {
                    return refused(
                            ErrorCode.DELEGATION_REVOKED,
                            "delegation " + id + " of the subject token's chain " + "is revoked or expired");
                }
            }
            for (String id : parent.get().agents().stream()
                    .map(AccessTokens.AgentVersion::id)
                    .toList()) {
                Optional<Agent> agent = directory.agent(AgentId.of(id));
                if (agent.filter(a -> a.isActive(now)).isEmpty()) {
                    return refused(
                            ErrorCode.AGENT_INACTIVE,
                            "agent " + id + " of the subject token's chain is "
                                    + agent.map(a -> a.status(now).wireName()).orElse("unknown"));
                }
            }
        }
        return refused(ErrorCode.SUBJECT_TOKEN_INVALID, "subject_token was revoked or its grant ended");
    }

    private static OAuthException refused(ErrorCode reason, String description) {
        return OAuthException.because(ErrorCode.OAUTH_INVALID_REQUEST, reason, description);
    }
}
