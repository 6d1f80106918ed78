package dev.warden.api.audit;

import dev.warden.api.access.AccessPolicy;
import dev.warden.api.access.Principal;
import java.util.Optional;

/**
 * Which audit entries a caller may ever see: the admin all; a user the decisions about the agents they
 * own (the entry's {@code userId}); an agent the decisions about itself.
 */
public record AuditScope(Optional<String> userId, Optional<String> agentId) {
    /** The scope of {@code caller}. */
    public static AuditScope of(Principal caller) {
        AccessPolicy.AuditVisibility visible = AccessPolicy.auditVisibility(caller);
        return new AuditScope(visible.userId(), visible.agentId());
    }
}
