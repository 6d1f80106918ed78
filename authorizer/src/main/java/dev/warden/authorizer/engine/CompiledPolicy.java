package dev.warden.authorizer.engine;

import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.Permission;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;

/**
 * The effective grants of one agent, compiled once and then asked which grants allow a call.
 *
 * <p>Grants are kept in the engine's order (see the package overview): unrestricted (no budget, no condition)
 * before restricted, unconstrained before constrained, then more literal segments first, exact before wildcard,
 * then by pattern text. Both lookups answer in that order. Because unrestricted grants come first, <em>when the
 * first match is restricted, every match is</em>; so the authorize path is:
 * <pre>{@code
 * Optional<EffectiveGrant> first = policy.firstMatch(action, resource);
 * if (first.isEmpty())                    -> deny (no permission)
 * else if (first.get().isUnrestricted())  -> allow, nothing evaluated, no counter touched
 * else for (EffectiveGrant g : policy.matches(action, resource))
 *          if (every condition of g.conditions() holds
 *              and the quota consumes every step of g.constraints()) -> allow
 *      -> deny RATE_LIMITED when some grant's conditions held, else CONDITION_NOT_MET
 * }</pre>
 *
 * <p>Immutable and thread-safe; share one instance between threads. {@link #firstMatch} allocates nothing;
 * it narrows the candidates by the resource's first segment and then tests each in order.
 */
public final class CompiledPolicy {
    private static final CompiledPolicy EMPTY = compile(List.of());

    private final List<EffectiveGrant> grants;
    private final List<CompiledGrant> compiled;
    private final FirstSegmentIndex index;

    private CompiledPolicy(List<CompiledGrant> compiled) {
        this.compiled = compiled;
        this.grants = compiled.stream().map(g -> g.grant).toList();
        this.index = FirstSegmentIndex.build(compiled);
    }

    /**
     * Compiles an agent's effective grants: its own permissions and those it received by delegation.
     * Duplicate grants (equal records) are kept once; the input order does not matter.
     */
    public static CompiledPolicy compile(Collection<EffectiveGrant> grants) {
        List<CompiledGrant> compiled = new ArrayList<>();
        for (EffectiveGrant grant : new LinkedHashSet<>(grants)) {
            compiled.add(new CompiledGrant(grant));
        }
        compiled.sort(GrantOrder.ORDER);
        return new CompiledPolicy(List.copyOf(compiled));
    }

    /** Compiles the permissions listed on {@code agent} itself, for an agent that holds no delegations. */
    public static CompiledPolicy ofDirect(AgentId agent, Collection<Permission> permissions) {
        return compile(
                permissions.stream().map(p -> EffectiveGrant.direct(agent, p)).toList());
    }

    /** A policy that allows nothing. */
    public static CompiledPolicy empty() {
        return EMPTY;
    }

    /**
     * The first grant, in policy order, that allows {@code action} on {@code resource}. Allocation-free.
     *
     * @param resource a concrete resource, valid under {@link dev.warden.authorizer.domain.ResourcePattern}
     */
    public Optional<EffectiveGrant> firstMatch(String action, String resource) {
        for (CompiledGrant grant : index.candidates(resource)) {
            if (grant.matches(action, resource)) {
                return grant.asOptional;
            }
        }
        return Optional.empty();
    }

    /**
     * Every grant that allows {@code action} on {@code resource}, in policy order; empty when none does.
     * Allocates only the returned list (nothing when it is empty).
     */
    public List<EffectiveGrant> matches(String action, String resource) {
        List<EffectiveGrant> found = null;
        for (CompiledGrant grant : index.candidates(resource)) {
            if (grant.matches(action, resource)) {
                if (found == null) {
                    found = new ArrayList<>(4);
                }
                found.add(grant.grant);
            }
        }
        return found == null ? List.of() : Collections.unmodifiableList(found);
    }

    /**
     * The grant a delegation of {@code delegated} would derive from: the first grant, in policy order, that
     * alone covers it ({@link PermissionCoverage#covers(Permission, Permission)}). Empty when no single grant
     * does, which means the delegation asks for more than this agent holds.
     */
    public Optional<EffectiveGrant> coveringGrant(Permission delegated) {
        CompiledPattern pattern = CompiledPattern.compile(delegated.resource());
        ActionSet actions = ActionSet.of(delegated.actions());
        for (CompiledGrant grant : compiled) {
            if (grant.pattern.covers(pattern) && grant.actions.covers(actions)) {
                return grant.asOptional;
            }
        }
        return Optional.empty();
    }

    /** All grants, in policy order. */
    public List<EffectiveGrant> grants() {
        return grants;
    }

    /** The number of distinct grants. */
    public int size() {
        return compiled.size();
    }

    @Override
    public String toString() {
        return "CompiledPolicy"
                + compiled.stream().map(g -> g.pattern.pattern() + g.actions).toList();
    }
}
