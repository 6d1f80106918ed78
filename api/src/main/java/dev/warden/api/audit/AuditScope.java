package dev.warden.api.audit;

import dev.warden.api.auth.Principal;
import java.util.Optional;

/**
 * Which audit entries a caller may ever see: the admin all; a user the decisions about the agents they
 * own (the entry's {@code userId}); an agent the decisions about itself.
 */
public record AuditScope(Optional<String> userId, Optional<String> agentId) {
    /** The scope of {@code caller}. */
    public static AuditScope of(Principal caller) {
        return switch (caller) {
            case Principal.Admin a -> new AuditScope(Optional.empty(), Optional.empty());
            case Principal.User u -> new AuditScope(Optional.of(u.id().value()), Optional.empty());
            case Principal.AgentCaller c -> new AuditScope(Optional.empty(), Optional.of(c.id().value()));
        };
    }
}
