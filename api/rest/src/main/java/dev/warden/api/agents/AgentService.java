package dev.warden.api.agents;

import dev.warden.api.access.AccessPolicy;
import dev.warden.api.access.OrgAuthority;
import dev.warden.api.access.Principal;
import dev.warden.api.auth.TokenKind;
import dev.warden.api.auth.Tokens;
import dev.warden.api.errors.ConflictException;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.InvalidInputException;
import dev.warden.api.errors.NotFoundException;
import dev.warden.api.events.EventOutbox;
import dev.warden.api.http.ListPaging;
import dev.warden.api.oauth.agents.ManagedAgents;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.AgentStatus;
import dev.warden.authorizer.domain.AgentType;
import dev.warden.authorizer.domain.Budget;
import dev.warden.authorizer.domain.Permission;
import dev.warden.authorizer.domain.TenantId;
import dev.warden.authorizer.domain.UserId;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.EventType;
import dev.warden.runtime.db.Keyset;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The agent lifecycle as library operations (SPEC: Agents, States and transitions): create, read, list,
 * update, revoke, rotate, suspend, resume. Enforces who may do what:
 *
 * <ul>
 *   <li>the admin may do everything;</li>
 *   <li>a user sees and manages only the agents they own, and creates agents only for themselves;</li>
 *   <li>an agent may read its own record and nothing else.</li>
 * </ul>
 *
 * An agent the caller may not see is reported as not found (404), so ids do not leak. Every change is
 * stored with its event atomically and the event is published before the method returns (or, if Kafka
 * is down, as soon as it is back). Thread-safe.
 */
public final class AgentService implements ManagedAgents {
    private final AgentRepository repository;
    private final EventOutbox outbox;
    private final InstantSource clock;
    private final List<AgentListener> listeners;
    private final Tenancy tenancy;

    public AgentService(
            AgentRepository repository,
            EventOutbox outbox,
            InstantSource clock,
            List<AgentListener> listeners,
            Tenancy tenancy) {
        this.repository = repository;
        this.outbox = outbox;
        this.clock = clock;
        this.listeners = List.copyOf(listeners);
        this.tenancy = tenancy;
    }

    /** Where a new agent is placed: its tenant, which is an organization or (from before them) a free label. */
    @FunctionalInterface
    public interface Tenancy {
        /**
         * The tenant of a new agent of {@code owner} that asked for {@code requested}.
         *
         * @throws dev.warden.api.errors.WardenException when the owner may not place an agent there
         */
        Optional<TenantId> place(UserId owner, Optional<TenantId> requested);

        /** Tenants are free labels, as before organizations (tests of the agent surface alone). */
        Tenancy LABELS = (owner, requested) -> requested;
    }

    /** What an organization's administrator may do to one of its agents (docs/organizations.md). */
    public enum AdminAction {
        REVOKE,
        SUSPEND,
        RESUME
    }

    /** The audit entry of an administrative change, from the agent before and after it. */
    @FunctionalInterface
    public interface Auditor {
        AuditEntry entry(Agent before, Agent after, Instant at);
    }

    /** What {@link #create} needs. */
    public record NewAgent(
            UserId ownerId,
            Optional<TenantId> tenantId,
            String name,
            AgentType type,
            List<Permission> permissions,
            Optional<Instant> expiresAt,
            Map<String, Object> metadata,
            Optional<Budget> budget) {}

    /**
     * A partial update: absent fields are left alone. {@code expiresAt} is present-and-empty to clear
     * the expiry.
     */
    public record Patch(
            Optional<String> name,
            Optional<List<Permission>> permissions,
            Optional<Optional<Instant>> expiresAt,
            Optional<Map<String, Object>> metadata,
            Optional<Optional<Budget>> budget) {}

    /** List filters. */
    public record Query(Optional<AgentStatus> status, Optional<AgentType> type, Optional<TenantId> tenantId) {}

    /** An agent together with its freshly issued token (shown once). */
    public record Issued(Agent agent, String token) {}

    /** Registers a new active agent and issues its token. */
    public Issued create(Principal caller, NewAgent request) {
        AccessPolicy.requireMayManageAgentsOf(caller, request.ownerId());
        Instant now = now();
        request.expiresAt().filter(e -> !e.isAfter(now)).ifPresent(e -> {
            throw InvalidInputException.field("expiresAt", "must be in the future");
        });
        Optional<TenantId> tenant = tenancy.place(request.ownerId(), request.tenantId());
        Agent agent = new Agent(
                AgentId.random(),
                request.ownerId(),
                tenant,
                request.name(),
                request.type(),
                AgentStatus.ACTIVE,
                request.permissions(),
                request.expiresAt().map(AgentService::millis),
                request.metadata(),
                now,
                now,
                request.budget());
        String token = Tokens.mint(TokenKind.AGENT);
        repository.create(
                agent, Tokens.hash(token), List.of(AgentEvents.of(EventType.AGENT_CREATED, agent, caller, now)));
        committed(agent, EventType.AGENT_CREATED, caller);
        return new Issued(agent, token);
    }

    /** The agent, if the caller may see it. */
    public Agent get(Principal caller, AgentId id) {
        return visible(caller, id);
    }

    /** The agent, if it exists and the caller may see it (for pages that name what they may and hide the rest). */
    public Optional<Agent> find(Principal caller, AgentId id) {
        return repository.find(id).filter(agent -> AccessPolicy.mayActFor(caller, agent));
    }

    /** The agents the caller may see that match {@code query}. */
    public List<Agent> list(Principal caller, Query query) {
        AccessPolicy.AgentVisibility visible = AccessPolicy.agentVisibility(caller);
        List<Agent> agents = repository.list(
                new AgentRepository.Filter(visible.owner(), query.tenantId(), query.type(), query.status(), now()));
        return visible.only().isEmpty()
                ? agents
                : agents.stream().filter(visible::includes).toList();
    }

    /** One page of the agents the caller may see that match {@code query}, oldest first. */
    public ListPaging.Page<Agent> page(Principal caller, Query query, ListPaging.Request request) {
        AccessPolicy.AgentVisibility visible = AccessPolicy.agentVisibility(caller);
        AgentRepository.Filter filter =
                new AgentRepository.Filter(visible.owner(), query.tenantId(), query.type(), query.status(), now());
        return ListPaging.read(
                request,
                (after, limit) -> repository.list(filter, after, limit),
                visible::includes,
                agent -> new Keyset(agent.createdAt(), agent.id().value()));
    }

    /**
     * The unrevoked agents the caller may see that an enforcement point knows as the AuthZEN subject
     * {@code subject} ({@code type:id}, their metadata {@code authzen.subject}), at most two: more than one is
     * ambiguous to the caller.
     */
    public List<Agent> findBySubject(Principal caller, String subject) {
        AccessPolicy.AgentVisibility visible = AccessPolicy.agentVisibility(caller);
        if (visible.only().isPresent()) {
            return repository
                    .find(visible.only().get())
                    .filter(a -> a.status(now()) != AgentStatus.REVOKED)
                    .filter(a -> subject.equals(a.metadata().get("authzen.subject")))
                    .stream()
                    .toList();
        }
        return repository.findBySubject(visible.owner(), subject, 2);
    }

    /** Applies a partial update. A revoked agent cannot be changed. */
    public Agent update(Principal caller, AgentId id, Patch patch) {
        manageable(caller, id);
        Instant now = now();
        patch.expiresAt().flatMap(e -> e).filter(e -> !e.isAfter(now)).ifPresent(e -> {
            throw InvalidInputException.field("expiresAt", "must be in the future");
        });
        Agent updated = repository
                .update(id, current -> {
                    requireNotRevoked(current);
                    List<String> changed = new ArrayList<>();
                    Agent next = applyPatch(current, patch, now, changed);
                    if (changed.isEmpty()) {
                        return AgentRepository.Outcome.unchanged(current);
                    }
                    return new AgentRepository.Outcome(
                            next,
                            Optional.empty(),
                            List.of(AgentEvents.of(EventType.AGENT_UPDATED, next, caller, now, changed)));
                })
                .orElseThrow(AgentService::notFound);
        committed(updated, EventType.AGENT_UPDATED, caller);
        return updated;
    }

    /**
     * Records that the agent's OAuth client was bound or unbound (the caller may manage it): the agent's version
     * ({@code updatedAt}) moves, which ends its client-credentials tokens on every instance (D185), with an
     * {@code agent.updated} event whose {@code changed} is {@code ["oauthClient"]}.
     */
    @Override
    public Agent clientBindingChanged(Principal caller, AgentId id) {
        manageable(caller, id);
        Instant now = now();
        Agent updated = repository
                .update(id, current -> {
                    Agent next = new Agent(
                            current.id(),
                            current.ownerId(),
                            current.tenantId(),
                            current.name(),
                            current.type(),
                            current.storedStatus(),
                            current.permissions(),
                            current.expiresAt(),
                            current.metadata(),
                            current.createdAt(),
                            now,
                            current.budget());
                    return new AgentRepository.Outcome(
                            next,
                            Optional.empty(),
                            List.of(AgentEvents.of(
                                    EventType.AGENT_UPDATED, next, caller, now, List.of("oauthClient"))));
                })
                .orElseThrow(AgentService::notFound);
        committed(updated, EventType.AGENT_UPDATED, caller);
        return updated;
    }

    /** Revokes the agent, permanently. Revoking a revoked agent changes nothing. */
    public void revoke(Principal caller, AgentId id) {
        manageable(caller, id);
        revoke(caller, id, Optional.empty());
    }

    private Agent revoke(Principal caller, AgentId id, Optional<Auditor> auditor) {
        Instant now = now();
        Agent revoked = repository
                .update(id, current -> {
                    if (current.storedStatus() == AgentStatus.REVOKED) {
                        return AgentRepository.Outcome.unchanged(current);
                    }
                    Agent next = withStatus(current, AgentStatus.REVOKED, now);
                    return new AgentRepository.Outcome(
                            next,
                            Optional.empty(),
                            List.of(AgentEvents.of(EventType.AGENT_REVOKED, next, caller, now)),
                            auditor.map(a -> a.entry(current, next, now)).stream()
                                    .toList());
                })
                .orElseThrow(AgentService::notFound);
        committed(revoked, EventType.AGENT_REVOKED, caller);
        return revoked;
    }

    /**
     * Issues a new token; the previous one stops working at once. Allowed while the agent is active or
     * suspended; refused (409) when it is revoked or expired.
     */
    public Issued rotate(Principal caller, AgentId id) {
        manageable(caller, id);
        Instant now = now();
        String token = Tokens.mint(TokenKind.AGENT);
        Agent rotated = repository
                .update(id, current -> {
                    AgentStatus status = current.status(now);
                    if (status == AgentStatus.REVOKED || status == AgentStatus.EXPIRED) {
                        throw inactive(current, status);
                    }
                    Agent next = touch(current, now);
                    return new AgentRepository.Outcome(
                            next,
                            Optional.of(Tokens.hash(token)),
                            List.of(AgentEvents.of(EventType.AGENT_ROTATED, next, caller, now)));
                })
                .orElseThrow(AgentService::notFound);
        committed(rotated, EventType.AGENT_ROTATED, caller);
        return new Issued(rotated, token);
    }

    /** Suspends an active agent: its token and decisions stop working until {@link #resume}. */
    public Agent suspend(Principal caller, AgentId id) {
        manageable(caller, id);
        return transition(
                caller, id, AgentStatus.ACTIVE, AgentStatus.SUSPENDED, EventType.AGENT_SUSPENDED, Optional.empty());
    }

    /** Resumes a suspended agent. */
    public Agent resume(Principal caller, AgentId id) {
        manageable(caller, id);
        return transition(
                caller, id, AgentStatus.SUSPENDED, AgentStatus.ACTIVE, EventType.AGENT_RESUMED, Optional.empty());
    }

    /**
     * One of the organization's agents, for its administrators ({@code agents:read} is the caller's to check).
     *
     * @throws NotFoundException {@code agent_not_found} for an agent of another tenant, so ids do not leak
     */
    public Agent inOrganization(OrgAuthority authority, AgentId id) {
        return repository
                .find(id)
                .filter(agent -> AccessPolicy.inOrganization(authority, agent))
                .orElseThrow(AgentService::notFound);
    }

    /** One page of the organization's agents matching {@code query}, newest first. */
    public List<Agent> pageInOrganization(OrgAuthority authority, Query query, Optional<Keyset> after, int limit) {
        return repository.page(
                new AgentRepository.Filter(
                        Optional.empty(),
                        Optional.of(TenantId.of(authority.organizationId())),
                        query.type(),
                        query.status(),
                        now()),
                after,
                limit);
    }

    /**
     * Revokes, suspends or resumes one of the organization's agents as its administrator, with the action's audit
     * entry stored with the change ({@code agents:admin} is the caller's to check).
     */
    public Agent administer(OrgAuthority authority, AgentId id, AdminAction action, Auditor auditor) {
        inOrganization(authority, id);
        Principal actor = authority.actor();
        return switch (action) {
            case REVOKE -> revoke(actor, id, Optional.of(auditor));
            case SUSPEND ->
                transition(
                        actor,
                        id,
                        AgentStatus.ACTIVE,
                        AgentStatus.SUSPENDED,
                        EventType.AGENT_SUSPENDED,
                        Optional.of(auditor));
            case RESUME ->
                transition(
                        actor,
                        id,
                        AgentStatus.SUSPENDED,
                        AgentStatus.ACTIVE,
                        EventType.AGENT_RESUMED,
                        Optional.of(auditor));
        };
    }

    private Agent transition(
            Principal caller,
            AgentId id,
            AgentStatus from,
            AgentStatus to,
            EventType event,
            Optional<Auditor> auditor) {
        Instant now = now();
        Agent result = repository
                .update(id, current -> {
                    AgentStatus status = current.status(now);
                    if (status == to) {
                        return AgentRepository.Outcome.unchanged(current);
                    }
                    if (status != from) {
                        throw inactive(current, status);
                    }
                    Agent next = withStatus(current, to, now);
                    return new AgentRepository.Outcome(
                            next,
                            Optional.empty(),
                            List.of(AgentEvents.of(event, next, caller, now)),
                            auditor.map(a -> a.entry(current, next, now)).stream()
                                    .toList());
                })
                .orElseThrow(AgentService::notFound);
        committed(result, event, caller);
        return result;
    }

    private void committed(Agent agent, EventType change, Principal caller) {
        listeners.forEach(l -> l.changed(agent, change, caller));
        outbox.flush();
    }

    private static Agent applyPatch(Agent current, Patch patch, Instant now, List<String> changed) {
        String name = patch.name()
                .filter(n -> !n.equals(current.name()))
                .map(n -> mark(changed, "name", n))
                .orElse(current.name());
        List<Permission> permissions = patch.permissions()
                .filter(p -> !p.equals(current.permissions()))
                .map(p -> mark(changed, "permissions", p))
                .orElse(current.permissions());
        Optional<Instant> expiresAt = patch.expiresAt()
                .map(e -> e.map(AgentService::millis))
                .filter(e -> !e.equals(current.expiresAt()))
                .map(e -> mark(changed, "expiresAt", e))
                .orElse(current.expiresAt());
        Map<String, Object> metadata = patch.metadata()
                .filter(m -> !m.equals(current.metadata()))
                .map(m -> mark(changed, "metadata", m))
                .orElse(current.metadata());
        Optional<Budget> budget = patch.budget()
                .filter(b -> !b.equals(current.budget()))
                .map(b -> mark(changed, "budget", b))
                .orElse(current.budget());
        return new Agent(
                current.id(),
                current.ownerId(),
                current.tenantId(),
                name,
                current.type(),
                current.storedStatus(),
                permissions,
                expiresAt,
                metadata,
                current.createdAt(),
                now,
                budget);
    }

    private static <T> T mark(List<String> changed, String field, T value) {
        changed.add(field);
        return value;
    }

    private static Agent withStatus(Agent a, AgentStatus status, Instant now) {
        return new Agent(
                a.id(),
                a.ownerId(),
                a.tenantId(),
                a.name(),
                a.type(),
                status,
                a.permissions(),
                a.expiresAt(),
                a.metadata(),
                a.createdAt(),
                now,
                a.budget());
    }

    private static Agent touch(Agent a, Instant now) {
        return withStatus(a, a.storedStatus(), now);
    }

    private Agent visible(Principal caller, AgentId id) {
        return repository
                .find(id)
                .filter(agent -> AccessPolicy.mayActFor(caller, agent))
                .orElseThrow(AgentService::notFound);
    }

    /**
     * The agent, when the caller may change it (its owner or the administrator): 404 when the caller may not see
     * it, 403 when it may see but not change it.
     */
    @Override
    public Agent manageable(Principal caller, AgentId id) {
        Agent agent = visible(caller, id);
        AccessPolicy.requireNotAgent(caller, "an agent token may read its own record but not change it");
        AccessPolicy.requireMayManageAgentsOf(caller, agent.ownerId());
        return agent;
    }

    private static void requireNotRevoked(Agent agent) {
        if (agent.storedStatus() == AgentStatus.REVOKED) {
            throw inactive(agent, AgentStatus.REVOKED);
        }
    }

    private static ConflictException inactive(Agent agent, AgentStatus status) {
        return new ConflictException(ErrorCode.AGENT_INACTIVE, "agent " + agent.id() + " is " + status.wireName());
    }

    private static NotFoundException notFound() {
        return new NotFoundException(ErrorCode.AGENT_NOT_FOUND, "no such agent");
    }

    private Instant now() {
        return millis(clock.instant());
    }

    private static Instant millis(Instant instant) {
        return instant.truncatedTo(ChronoUnit.MILLIS);
    }
}
