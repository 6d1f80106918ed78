package dev.warden.api.authorize;

import dev.warden.api.agents.AgentRepository;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.Delegation;
import dev.warden.authorizer.domain.Permission;
import dev.warden.authorizer.engine.CompiledPolicy;
import dev.warden.authorizer.engine.EffectiveGrant;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Computes an agent's effective permissions: its own, plus those of every active, unexpired delegation
 * that reaches it, each delegated permission hanging under the source grant that covers it (so it carries
 * every constraint above it). A delegation counts only while its source is active and still holds a covering
 * grant, so revoking, suspending or expiring an agent, or narrowing its permissions, cuts every chain it is
 * the source of, transitively and at once.
 *
 * <p>Results are cached per agent until {@link #invalidateAll()} (called on every local change and, via
 * {@code warden.events}, on every change made by another instance) or until the earliest expiry involved.
 * Thread-safe.
 */
public final class PolicyResolver {
    private final AgentRepository agents;
    private final IncomingDelegations delegations;
    private final InstantSource clock;
    private final Map<AgentId, Resolved> cache = new ConcurrentHashMap<>();
    private final AtomicLong generation = new AtomicLong();

    public PolicyResolver(AgentRepository agents, IncomingDelegations delegations, InstantSource clock) {
        this.agents = agents;
        this.delegations = delegations;
        this.clock = clock;
    }

    /**
     * An agent and its compiled effective policy.
     *
     * @param agent      empty when there is no such agent
     * @param validUntil the earliest expiry among the delegations and sources involved
     */
    public record Resolved(Optional<Agent> agent, CompiledPolicy policy, Instant validUntil) {
    }

    /** The (possibly cached) resolution of {@code id} at the current time. */
    public Resolved resolve(AgentId id) {
        Instant now = clock.instant();
        Resolved cached = cache.get(id);
        if (cached != null && now.isBefore(cached.validUntil())) {
            return cached;
        }
        long gen = generation.get();
        Resolved fresh = compute(id, now, new HashSet<>());
        if (generation.get() == gen) {
            cache.put(id, fresh);
        }
        return fresh;
    }

    /** A resolution computed now from storage, bypassing the cache (for writes that must see the latest state). */
    public Resolved resolveFresh(AgentId id) {
        return compute(id, clock.instant(), new HashSet<>());
    }

    /** Drops every cached resolution. */
    public void invalidateAll() {
        generation.incrementAndGet();
        cache.clear();
    }

    private Resolved compute(AgentId id, Instant now, Set<AgentId> path) {
        Optional<Agent> agent = agents.find(id);
        if (agent.isEmpty() || !agent.get().isActive(now)) {
            return new Resolved(agent, CompiledPolicy.empty(), Instant.MAX);
        }
        Instant validUntil = agent.get().expiresAt().orElse(Instant.MAX);
        List<EffectiveGrant> grants = new ArrayList<>();
        for (Permission permission : agent.get().permissions()) {
            grants.add(EffectiveGrant.direct(id, permission));
        }
        path.add(id);
        for (Delegation delegation : delegations.unrevokedTo(id)) {
            if (!delegation.isActive(now) || path.contains(delegation.fromAgent())) {
                continue;
            }
            Resolved source = compute(delegation.fromAgent(), now, path);
            validUntil = earliest(validUntil, source.validUntil());
            validUntil = earliest(validUntil, delegation.expiresAt().orElse(Instant.MAX));
            for (Permission permission : delegation.permissions()) {
                source.policy().coveringGrant(permission)
                        .ifPresent(parent -> grants.add(parent.delegate(delegation.id(), id, permission)));
            }
        }
        path.remove(id);
        return new Resolved(agent, CompiledPolicy.compile(grants), validUntil);
    }

    private static Instant earliest(Instant a, Instant b) {
        return a.isBefore(b) ? a : b;
    }

    /**
     * Where the resolver finds the delegations into an agent. Implemented by the delegations' repository, so
     * that {@code authorize} does not depend on {@code delegations} (whose service asks this resolver).
     */
    public interface IncomingDelegations {
        /** The delegations to {@code agent} that are not revoked (expired ones included). */
        List<Delegation> unrevokedTo(AgentId agent);
    }
}
