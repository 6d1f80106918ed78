package dev.warden.authorizer.engine;

import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.DelegationId;
import dev.warden.authorizer.domain.Permission;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A permission as one agent holds it, with every hourly budget a call through it must consume.
 *
 * <p>A direct grant carries its own constraint, if any. A delegated grant carries its own constraint
 * followed by all constraints of the grant it was delegated from, nearest first, so a chain
 * {@code A --d1--> B --d2--> C} gives C's grant the steps {@code [d2's, d1's, A's]} (those that are set).
 * A grant is <em>unconstrained</em> only when that whole list is empty. Conditions chain the same way: a call
 * through C's grant meets d2's condition, d1's and A's (those that are set), so a delegation only narrows; a grant
 * is <em>unrestricted</em> when it has neither a budget nor a condition anywhere in its chain.
 *
 * <p>Build them with {@link #direct(AgentId, Permission)} and {@link #delegate(DelegationId, AgentId, Permission)};
 * find the parent of a delegated permission with {@link CompiledPolicy#coveringGrant(Permission)}.
 *
 * @param origin      who holds the grant and where it comes from
 * @param permission  the grant itself
 * @param depth       0 for a direct grant; for a delegated one its position in the chain, 1 for a
 *                    delegation of a direct grant (SPEC: Delegation {@code depth})
 * @param constraints the budgets to consume, own first, then each ancestor's, nearest first
 * @param conditions  the conditions to meet, own first, then each ancestor's, nearest first
 * @param approvals   the approval requirements, own first, then each ancestor's, nearest first
 * @param delegations the delegations the grant came through, nearest first; empty for a direct grant
 * @param source      where the grant this one was delegated from comes from (the delegating agent's own list, or
 *                    the delegation that reached it); empty for a direct grant
 */
public record EffectiveGrant(
        GrantOrigin origin,
        Permission permission,
        int depth,
        List<ConstrainedStep> constraints,
        List<ConditionStep> conditions,
        List<ApprovalStep> approvals,
        List<DelegationId> delegations,
        Optional<GrantOrigin> source) {
    public EffectiveGrant {
        delegations = List.copyOf(delegations);
        constraints = List.copyOf(constraints);
        conditions = List.copyOf(conditions);
        approvals = List.copyOf(approvals);
        boolean direct = origin instanceof GrantOrigin.Direct;
        if (direct != (depth == 0) || depth < 0) {
            throw new IllegalArgumentException("depth must be 0 for a direct grant and at least 1 for a delegated one");
        }
        if (direct != source.isEmpty()) {
            throw new IllegalArgumentException("a delegated grant, and only a delegated grant, has a source");
        }
    }

    /** The grant of {@code permission} listed on {@code agent} itself. */
    public static EffectiveGrant direct(AgentId agent, Permission permission) {
        GrantOrigin origin = new GrantOrigin.Direct(agent);
        return new EffectiveGrant(
                origin,
                permission,
                0,
                ownStep(origin, permission),
                ownCondition(origin, permission),
                ownApproval(origin, permission),
                List.of(),
                Optional.empty());
    }

    /**
     * The grant that {@code delegation} gives {@code holder} from this grant.
     *
     * @param delegated a subset of this grant (see {@link PermissionCoverage#covers(Permission, Permission)})
     * @throws IllegalArgumentException when {@code delegated} is not covered by this grant's permission
     */
    public EffectiveGrant delegate(DelegationId delegation, AgentId holder, Permission delegated) {
        if (!PermissionCoverage.covers(permission, delegated)) {
            throw new IllegalArgumentException(
                    "delegated permission " + delegated.resource() + " " + delegated.actions() + " is not a subset of "
                            + permission.resource() + " " + permission.actions());
        }
        GrantOrigin childOrigin = new GrantOrigin.Delegated(delegation, holder);
        List<ConstrainedStep> chain = new ArrayList<>(ownStep(childOrigin, delegated));
        chain.addAll(constraints);
        List<ConditionStep> conditionChain = new ArrayList<>(ownCondition(childOrigin, delegated));
        conditionChain.addAll(conditions);
        List<ApprovalStep> approvalChain = new ArrayList<>(ownApproval(childOrigin, delegated));
        approvalChain.addAll(approvals);
        List<DelegationId> path = new ArrayList<>(List.of(delegation));
        path.addAll(delegations);
        return new EffectiveGrant(
                childOrigin, delegated, depth + 1, chain, conditionChain, approvalChain, path, Optional.of(origin));
    }

    /** True when a call through this grant must consume at least one hourly budget. */
    public boolean isConstrained() {
        return !constraints.isEmpty();
    }

    /** True when a call through this grant must meet at least one condition. */
    public boolean isConditional() {
        return !conditions.isEmpty();
    }

    /** True when a call through this grant needs a person's approval first. */
    public boolean requiresApproval() {
        return !approvals.isEmpty();
    }

    /** True when a matching call is allowed through this grant with nothing more to check or consume. */
    public boolean isUnrestricted() {
        return constraints.isEmpty() && conditions.isEmpty() && approvals.isEmpty();
    }

    /** A stable name for this grant: origin, sorted actions and resource (see {@link ConstrainedStep#counterKey()}). */
    public String key() {
        return GrantKeys.of(origin, permission);
    }

    private static List<ConstrainedStep> ownStep(GrantOrigin origin, Permission permission) {
        return permission.constraints().maxCallsPerHour().isEmpty()
                ? List.of()
                : List.of(new ConstrainedStep(origin, permission));
    }

    private static List<ApprovalStep> ownApproval(GrantOrigin origin, Permission permission) {
        return permission.constraints().approval().isEmpty()
                ? List.of()
                : List.of(new ApprovalStep(origin, permission));
    }

    private static List<ConditionStep> ownCondition(GrantOrigin origin, Permission permission) {
        return permission.constraints().condition().isEmpty()
                ? List.of()
                : List.of(new ConditionStep(origin, permission));
    }
}
