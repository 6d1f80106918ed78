package dev.warden.authorizer.engine;

import dev.warden.authorizer.domain.AgentStatus;
import java.util.Optional;

/** The reasons a decision is denied before any permission is looked at. Pure. */
public final class DecisionRules {
    private DecisionRules() {}

    /** Why an agent in {@code status} may do nothing, or empty when it is active. */
    public static Optional<DecisionReason> statusReason(AgentStatus status) {
        return switch (status) {
            case REVOKED -> Optional.of(DecisionReason.AGENT_REVOKED);
            case EXPIRED -> Optional.of(DecisionReason.AGENT_EXPIRED);
            case SUSPENDED -> Optional.of(DecisionReason.AGENT_SUSPENDED);
            case ACTIVE -> Optional.empty();
        };
    }
}
