package dev.warden.api.oauth.agents;

import dev.warden.authorizer.domain.ResourcePattern;
import dev.warden.authorizer.engine.CompiledPolicy;
import dev.warden.authorizer.engine.EffectiveGrant;
import java.util.List;

/**
 * How OAuth scopes meet agents' permissions. A scope {@code <resource>:<action>} (split at its last colon, e.g.
 * {@code agents:read} or {@code files:reports:export}) is held by an agent when a grant of its policy allows
 * {@code action} on {@code resource}, exactly as {@code POST /authorize} would decide it (wildcards included,
 * hourly quotas aside: a token is not a call). A scope without a colon, such as {@code mcp}, names no action
 * and is never held by an agent.
 */
public final class AgentScopes {
    private AgentScopes() {}

    /** The grants of {@code policy} that allow {@code scope}, in policy order; empty when none does. */
    public static List<EffectiveGrant> grantsFor(CompiledPolicy policy, String scope) {
        int colon = scope.lastIndexOf(':');
        if (colon <= 0 || colon == scope.length() - 1) {
            return List.of();
        }
        String resource = scope.substring(0, colon);
        if (ResourcePattern.resourceProblem(resource).isPresent()) {
            return List.of();
        }
        return policy.matches(scope.substring(colon + 1), resource);
    }
}
