package dev.warden.authorizer.engine;

import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.Delegation;
import dev.warden.authorizer.domain.Permission;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * An agent's effective permissions, walked along its delegation chains: its own permissions, plus those of
 * every active, unexpired delegation that reaches it, each delegated permission hanging under the source grant
 * that covers it (so it carries every constraint above it). A delegation counts only while its source is
 * active and still holds a covering grant, so revoking, suspending or expiring an agent, or narrowing its
 * permissions, cuts every chain it is the source of, transitively. A cycle is walked once. Pure: the caller
 * supplies the lookups ({@link Graph}); nothing here does I/O.
 */
public final class ChainWalk {
    private ChainWalk() {}

    /** Where the walk finds agents and the delegations into them (storage, a cache, a test fixture). */
    public interface Graph {
        /** The agent with this id, whatever its status. */
        Optional<Agent> agent(AgentId id);

        /** The delegations to {@code id} that are not revoked (expired ones included). */
        List<Delegation> unrevokedTo(AgentId id);
    }

    /**
     * The walk's result.
     *
     * @param agent      empty when there is no such agent
     * @param validUntil the earliest expiry among the agents and delegations involved: the result holds until then
     */
    public record Result(Optional<Agent> agent, CompiledPolicy policy, Instant validUntil) {}

    /** The effective policy of {@code id} at {@code now}. */
    public static Result resolve(AgentId id, Instant now, Graph graph) {
        return walk(id, now, graph, new HashSet<>());
    }

    private static Result walk(AgentId id, Instant now, Graph graph, Set<AgentId> path) {
        Optional<Agent> agent = graph.agent(id);
        if (agent.isEmpty() || !agent.get().isActive(now)) {
            return new Result(agent, CompiledPolicy.empty(), Instant.MAX);
        }
        Instant validUntil = agent.get().expiresAt().orElse(Instant.MAX);
        List<EffectiveGrant> grants = new ArrayList<>();
        for (Permission permission : agent.get().permissions()) {
            grants.add(EffectiveGrant.direct(id, permission));
        }
        path.add(id);
        for (Delegation delegation : graph.unrevokedTo(id)) {
            if (!delegation.isActive(now) || path.contains(delegation.fromAgent())) {
                continue;
            }
            Result source = walk(delegation.fromAgent(), now, graph, path);
            validUntil = earliest(validUntil, source.validUntil());
            validUntil = earliest(validUntil, delegation.expiresAt().orElse(Instant.MAX));
            for (Permission permission : delegation.permissions()) {
                source.policy()
                        .coveringGrant(permission)
                        .ifPresent(parent -> grants.add(parent.delegate(delegation.id(), id, permission)));
            }
        }
        path.remove(id);
        return new Result(agent, CompiledPolicy.compile(grants), validUntil);
    }

    private static Instant earliest(Instant a, Instant b) {
        return a.isBefore(b) ? a : b;
    }
}
