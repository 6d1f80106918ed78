package dev.warden.api.authorize;

import dev.warden.api.agents.AgentRepository;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.Delegation;
import dev.warden.authorizer.engine.ChainWalk;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An agent's effective permissions, from storage: the engine's {@link ChainWalk} over the agents and
 * delegations the repositories hold (revoking, suspending or expiring an agent, or narrowing its permissions,
 * cuts every chain it is the source of, transitively and at once).
 *
 * <p>Results are cached per agent until {@link #invalidateAll()} (called on every local change and, via
 * {@code warden.events}, on every change made by another instance) or until the earliest expiry involved.
 * Thread-safe.
 */
public final class PolicyResolver {
    private final AgentRepository agents;
    private final IncomingDelegations delegations;
    private final InstantSource clock;
    private final Map<AgentId, ChainWalk.Result> cache = new ConcurrentHashMap<>();
    private final AtomicLong generation = new AtomicLong();

    public PolicyResolver(AgentRepository agents, IncomingDelegations delegations, InstantSource clock) {
        this.agents = agents;
        this.delegations = delegations;
        this.clock = clock;
    }

    /** The (possibly cached) resolution of {@code id} at the current time. */
    public ChainWalk.Result resolve(AgentId id) {
        Instant now = clock.instant();
        ChainWalk.Result cached = cache.get(id);
        if (cached != null && now.isBefore(cached.validUntil())) {
            return cached;
        }
        long gen = generation.get();
        ChainWalk.Result fresh = compute(id, now);
        if (generation.get() == gen) {
            cache.put(id, fresh);
        }
        return fresh;
    }

    /** A resolution computed now from storage, bypassing the cache (for writes that must see the latest state). */
    public ChainWalk.Result resolveFresh(AgentId id) {
        return compute(id, clock.instant());
    }

    /** Drops every cached resolution. */
    public void invalidateAll() {
        generation.incrementAndGet();
        cache.clear();
    }

    private ChainWalk.Result compute(AgentId id, Instant now) {
        return ChainWalk.resolve(id, now, new ChainWalk.Graph() {
            @Override
            public Optional<Agent> agent(AgentId agentId) {
                return agents.find(agentId);
            }

            @Override
            public List<Delegation> unrevokedTo(AgentId agentId) {
                return delegations.unrevokedTo(agentId);
            }
        });
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
