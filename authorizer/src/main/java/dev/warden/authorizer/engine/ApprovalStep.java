package dev.warden.authorizer.engine;

import dev.warden.authorizer.domain.ApprovalRule;
import dev.warden.authorizer.domain.Permission;

/**
 * One approval requirement on a matching call: the {@code constraints.requireApproval} of one grant, owned by
 * {@link #origin()} (an agent's own permission, or a delegation). A call through an {@link EffectiveGrant} with any
 * such step needs an approval first; the step nearest the chain's source names who approves (docs/approvals.md).
 *
 * @param origin     who holds the grant that requires approval
 * @param permission the grant; its approval rule is present
 */
public record ApprovalStep(GrantOrigin origin, Permission permission) {
    public ApprovalStep {
        if (permission.constraints().approval().isEmpty()) {
            throw new IllegalArgumentException("an approval step needs an approval rule");
        }
    }

    /** The rule. */
    public ApprovalRule rule() {
        return permission.constraints().approval().orElseThrow();
    }
}
