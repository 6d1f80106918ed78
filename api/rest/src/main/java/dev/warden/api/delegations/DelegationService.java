package dev.warden.api.delegations;

import dev.warden.api.access.AccessPolicy;
import dev.warden.api.access.OrgAuthority;
import dev.warden.api.access.Principal;
import dev.warden.api.agents.AgentRepository;
import dev.warden.api.authorize.PolicyResolver;
import dev.warden.api.errors.ConflictException;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.FieldError;
import dev.warden.api.errors.ForbiddenException;
import dev.warden.api.errors.InvalidInputException;
import dev.warden.api.errors.NotFoundException;
import dev.warden.api.events.EventOutbox;
import dev.warden.api.http.ListPaging;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.Delegation;
import dev.warden.authorizer.domain.DelegationId;
import dev.warden.authorizer.domain.Permission;
import dev.warden.authorizer.engine.ChainWalk;
import dev.warden.authorizer.engine.ConstrainedStep;
import dev.warden.authorizer.engine.EffectiveGrant;
import dev.warden.authorizer.engine.GrantOrigin;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.Json;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.runtime.db.Keyset;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Delegations (SPEC: Delegation, Delegations endpoints): create with every rule checked, list the active
 * chains, revoke a chain and everything derived from it. Who may delegate or revoke: the admin, the source
 * agent's owner, or the source agent itself; the target's owner may also revoke. Thread-safe.
 */
public final class DelegationService {
    /** {@code maxDepth} when the request gives none. */
    public static final int DEFAULT_MAX_DEPTH = 5;
    /** Largest {@code maxDepth} accepted. */
    public static final int MAX_DEPTH_LIMIT = 10;

    private final DelegationRepository repository;
    private final AgentRepository agents;
    private final PolicyResolver resolver;
    private final EventOutbox outbox;
    private final InstantSource clock;

    public DelegationService(
            DelegationRepository repository,
            AgentRepository agents,
            PolicyResolver resolver,
            EventOutbox outbox,
            InstantSource clock) {
        this.repository = repository;
        this.agents = agents;
        this.resolver = resolver;
        this.outbox = outbox;
        this.clock = clock;
    }

    /** What {@link #create} needs. */
    public record NewDelegation(
            AgentId fromAgent,
            AgentId toAgent,
            List<Permission> permissions,
            Optional<Instant> expiresAt,
            int maxDepth) {}

    /** Creates a delegation after checking every rule; answers the stored delegation. */
    public Delegation create(Principal caller, NewDelegation request) {
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        Agent from = agents.find(request.fromAgent())
                .filter(a -> AccessPolicy.mayActFor(caller, a))
                .orElseThrow(() -> notFound("fromAgent"));
        if (request.fromAgent().equals(request.toAgent())) {
            throw new InvalidInputException(
                    ErrorCode.SELF_DELEGATION,
                    "fromAgent and toAgent must differ",
                    List.of(new FieldError("toAgent", "must differ from fromAgent")));
        }
        Agent to = agents.find(request.toAgent()).orElseThrow(() -> notFound("toAgent"));
        requireActive(from, "fromAgent", now);
        requireActive(to, "toAgent", now);
        request.expiresAt().filter(e -> !e.isAfter(now)).ifPresent(e -> {
            throw InvalidInputException.field("expiresAt", "must be in the future");
        });
        if (ancestorsOf(from.id(), now).contains(to.id())) {
            throw new ConflictException(
                    ErrorCode.DELEGATION_CYCLE,
                    "toAgent already delegates, directly or through a " + "chain, to fromAgent",
                    List.of(new FieldError("toAgent", "would create a cycle")));
        }
        Delegation delegation = plan(request, from, now);
        repository.create(delegation, List.of(event(EventType.DELEGATION_CREATED, delegation, caller, now, from)));
        resolver.invalidateAll();
        outbox.flush();
        return delegation;
    }

    /** The active chains the caller may see, optionally filtered by source and target. */
    public List<Delegation> list(Principal caller, Optional<AgentId> from, Optional<AgentId> to) {
        Predicate<Delegation> listed = listedFor(caller, clock.instant());
        return repository.listUnrevoked(from, to).stream().filter(listed).toList();
    }

    /** One page of what {@link #list} answers, in the same order. */
    public ListPaging.Page<Delegation> page(
            Principal caller, Optional<AgentId> from, Optional<AgentId> to, ListPaging.Request request) {
        return ListPaging.read(
                request,
                (after, limit) -> repository.listUnrevoked(from, to, after, limit),
                listedFor(caller, clock.instant()),
                d -> new Keyset(d.createdAt(), d.id().value()));
    }

    /** Whether a delegation is listed to {@code caller}: in force with both ends active, one end the caller's. */
    private Predicate<Delegation> listedFor(Principal caller, Instant now) {
        return d -> {
            Optional<Agent> source = agents.find(d.fromAgent());
            Optional<Agent> target = agents.find(d.toAgent());
            boolean active = d.isActive(now)
                    && source.map(a -> a.isActive(now)).orElse(false)
                    && target.map(a -> a.isActive(now)).orElse(false);
            return active
                    && (source.filter(a -> AccessPolicy.mayActFor(caller, a)).isPresent()
                            || target.filter(a -> AccessPolicy.mayActFor(caller, a))
                                    .isPresent());
        };
    }

    /**
     * The delegation chains that led into an agent at a moment, as far up as the caller may see.
     *
     * @param links  the delegations that granted at that moment, from the agent upwards, each one the caller may
     *               see (it may act for its source or its target)
     * @param hidden how many links in force were left out because the caller may see neither end
     */
    public record Chain(List<Delegation> links, int hidden) {
        public Chain {
            links = List.copyOf(links);
        }
    }

    /**
     * The chains that led into {@code agent} at {@code at}: every delegation in force then, walked upwards from
     * the agent to the roots (at most {@link #MAX_DEPTH_LIMIT} links deep), as the caller may see them. Revoked
     * delegations are kept, so the chain of a past decision is shown as it stood.
     */
    public Chain chainInto(Principal caller, AgentId agent, Instant at) {
        List<Delegation> links = new ArrayList<>();
        int hidden = 0;
        Set<AgentId> seen = new HashSet<>(Set.of(agent));
        List<AgentId> level = List.of(agent);
        for (int depth = 0; depth < MAX_DEPTH_LIMIT && !level.isEmpty(); depth++) {
            List<AgentId> next = new ArrayList<>();
            for (AgentId target : level) {
                for (Delegation d : repository.inForceTo(target, at)) {
                    if (!visibleTo(caller, d)) {
                        hidden++;
                        continue;
                    }
                    links.add(d);
                    if (seen.add(d.fromAgent())) {
                        next.add(d.fromAgent());
                    }
                }
            }
            level = next;
        }
        return new Chain(links, hidden);
    }

    private boolean visibleTo(Principal caller, Delegation d) {
        return agents.find(d.fromAgent())
                        .filter(a -> AccessPolicy.mayActFor(caller, a))
                        .isPresent()
                || agents.find(d.toAgent())
                        .filter(a -> AccessPolicy.mayActFor(caller, a))
                        .isPresent();
    }

    /** The delegation, revoked or not, if the caller may see it (it may act for its source or its target). */
    public Delegation get(Principal caller, DelegationId id) {
        return repository.find(id).filter(d -> visibleTo(caller, d)).orElseThrow(DelegationService::delegationNotFound);
    }

    /** Revokes the delegation and every chain derived from it, at once. Revoking twice changes nothing. */
    public void revoke(Principal caller, DelegationId id) {
        Delegation delegation = repository.find(id).orElseThrow(DelegationService::delegationNotFound);
        if (!visibleTo(caller, delegation)) {
            throw delegationNotFound();
        }
        revokeCascade(new DelegationRepository.Scope.One(id), "revoked", caller, Optional.empty());
    }

    /**
     * One delegation of the organization (its source agent is one of the organization's), for its administrators
     * ({@code delegations:read} is the caller's to check).
     *
     * @throws NotFoundException {@code delegation_not_found} for another tenant's, so ids do not leak
     */
    public Delegation inOrganization(OrgAuthority authority, DelegationId id) {
        return repository
                .find(id)
                .filter(d -> agents.find(d.fromAgent())
                        .filter(source -> AccessPolicy.inOrganization(authority, source))
                        .isPresent())
                .orElseThrow(DelegationService::delegationNotFound);
    }

    /** One page of the organization's unrevoked delegations, newest first. */
    public List<Delegation> pageInOrganization(OrgAuthority authority, Optional<Keyset> after, int limit) {
        return repository.pageOfTenant(authority.organizationId(), after, limit);
    }

    /**
     * Revokes one of the organization's delegations and every chain derived from it as the organization's
     * administrator, with the action's audit entry ({@code audit} of the revoked delegations) stored with it
     * ({@code delegations:admin} is the caller's to check). Revoking twice changes nothing.
     */
    public void revokeAsAdministrator(
            OrgAuthority authority, DelegationId id, Function<List<Delegation>, AuditEntry> audit) {
        inOrganization(authority, id);
        revokeCascade(new DelegationRepository.Scope.One(id), "revoked", authority.actor(), Optional.of(audit));
    }

    /** Revokes every chain {@code agent} is the source of, transitively (called when the agent is revoked). */
    public void revokeChainsFrom(AgentId agent, Principal caller) {
        revokeCascade(new DelegationRepository.Scope.FromAgent(agent), "source_revoked", caller, Optional.empty());
    }

    private void revokeCascade(
            DelegationRepository.Scope scope,
            String reason,
            Principal caller,
            Optional<Function<List<Delegation>, AuditEntry>> audit) {
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        List<Delegation> revoked = repository.revokeCascade(
                scope,
                reason,
                now,
                list -> new DelegationRepository.Records(
                        list.stream()
                                .map(d -> event(
                                        EventType.DELEGATION_REVOKED,
                                        d,
                                        caller,
                                        now,
                                        agents.find(d.fromAgent()).orElse(null)))
                                .toList(),
                        audit.map(a -> a.apply(list)).stream().toList()));
        resolver.invalidateAll();
        if (!revoked.isEmpty()) {
            outbox.flush();
        }
    }

    private Delegation plan(NewDelegation request, Agent from, Instant now) {
        ChainWalk.Result source = resolver.resolveFresh(from.id());
        List<FieldError> notHeld = new ArrayList<>();
        List<FieldError> loosened = new ArrayList<>();
        Set<DelegationId> ancestors = new LinkedHashSet<>();
        int depth = 1;
        int maxDepth = request.maxDepth();
        Optional<Instant> cap = from.expiresAt();
        for (int i = 0; i < request.permissions().size(); i++) {
            Permission permission = request.permissions().get(i);
            Optional<EffectiveGrant> parent = source.policy().coveringGrant(permission);
            if (parent.isEmpty()) {
                notHeld.add(new FieldError("permissions[" + i + "]", "fromAgent does not hold this permission"));
                continue;
            }
            if (loosens(permission, parent.get())) {
                loosened.add(new FieldError(
                        "permissions[" + i + "].constraints.maxCallsPerHour",
                        "must not exceed the limit inherited from fromAgent"));
            }
            depth = Math.max(depth, parent.get().depth() + 1);
            if (parent.get().origin() instanceof GrantOrigin.Delegated via) {
                Delegation above = repository.find(via.delegation()).orElseThrow();
                ancestors.add(above.id());
                ancestors.addAll(above.ancestors());
                maxDepth = Math.min(maxDepth, above.maxDepth());
                cap = earliest(cap, above.expiresAt());
            }
        }
        if (!notHeld.isEmpty()) {
            throw new ForbiddenException(
                    ErrorCode.PERMISSION_NOT_HELD,
                    "a delegation may only pass on permissions fromAgent holds",
                    notHeld);
        }
        if (!loosened.isEmpty()) {
            throw new InvalidInputException(ErrorCode.CONSTRAINT_LOOSENED, "constraints may only tighten", loosened);
        }
        if (depth > maxDepth) {
            throw new ConflictException(
                    ErrorCode.CHAIN_DEPTH_EXCEEDED,
                    "this delegation would be at depth " + depth + " but the chain allows at most " + maxDepth,
                    List.of(new FieldError("maxDepth", "the chain allows at most " + maxDepth)));
        }
        Optional<Instant> expiresAt = earliest(request.expiresAt().map(e -> e.truncatedTo(ChronoUnit.MILLIS)), cap);
        return new Delegation(
                DelegationId.random(),
                from.id(),
                request.toAgent(),
                request.permissions(),
                depth,
                maxDepth,
                List.copyOf(ancestors),
                expiresAt,
                now,
                Optional.empty());
    }

    private static boolean loosens(Permission permission, EffectiveGrant parent) {
        if (permission.constraints().maxCallsPerHour().isEmpty()) {
            return false;
        }
        long requested = permission.constraints().maxCallsPerHour().getAsLong();
        return parent.constraints().stream()
                .mapToLong(ConstrainedStep::maxCallsPerHour)
                .anyMatch(l -> requested > l);
    }

    /** Every agent that reaches {@code agent} through unrevoked, unexpired delegations. */
    private Set<AgentId> ancestorsOf(AgentId agent, Instant now) {
        Set<AgentId> seen = new HashSet<>();
        Deque<AgentId> todo = new ArrayDeque<>(List.of(agent));
        while (!todo.isEmpty()) {
            for (Delegation d : repository.unrevokedTo(todo.pop())) {
                if (d.isActive(now) && seen.add(d.fromAgent())) {
                    todo.push(d.fromAgent());
                }
            }
        }
        return seen;
    }

    private static StreamEvent.Draft event(EventType type, Delegation d, Principal actor, Instant now, Agent source) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("id", d.id().value());
        view.put("fromAgent", d.fromAgent().value());
        view.put("toAgent", d.toAgent().value());
        view.put("depth", d.depth());
        view.put("expiresAt", d.expiresAt().map(Json::timestamp).orElse(null));
        view.put("permissions", DelegationJson.permissionsAsData(d.permissions()));
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("delegation", view);
        data.put("actor", Map.of("id", actor.subjectId()));
        return new StreamEvent.Draft(
                type,
                now,
                data,
                Optional.of(d.fromAgent().value()),
                Optional.ofNullable(source).map(a -> a.ownerId().value()));
    }

    private static void requireActive(Agent agent, String field, Instant now) {
        if (!agent.isActive(now)) {
            throw new ConflictException(
                    ErrorCode.AGENT_INACTIVE,
                    field + " is " + agent.status(now).wireName(),
                    List.of(new FieldError(field, "is " + agent.status(now).wireName())));
        }
    }

    private static Optional<Instant> earliest(Optional<Instant> a, Optional<Instant> b) {
        if (a.isEmpty()) {
            return b;
        }
        if (b.isEmpty()) {
            return a;
        }
        return Optional.of(a.get().isBefore(b.get()) ? a.get() : b.get());
    }

    private static NotFoundException notFound(String field) {
        return new NotFoundException(
                ErrorCode.AGENT_NOT_FOUND, field + ": no such agent", List.of(new FieldError(field, "no such agent")));
    }

    private static NotFoundException delegationNotFound() {
        return new NotFoundException(ErrorCode.DELEGATION_NOT_FOUND, "no such delegation");
    }
}
