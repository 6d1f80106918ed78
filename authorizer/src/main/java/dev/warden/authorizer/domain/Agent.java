package dev.warden.authorizer.domain;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An agent identity (SPEC: Agent resource). Immutable; changes produce a new value.
 *
 * @param storedStatus the status as stored: {@link AgentStatus#ACTIVE}, {@link AgentStatus#SUSPENDED} or
 *                     {@link AgentStatus#REVOKED}; never {@link AgentStatus#EXPIRED}, which is derived by
 *                     {@link #status(Instant)}
 * @param metadata     free-form JSON object, as JDK values (maps, lists, strings, numbers, booleans)
 * @param budget       optional cost budget
 */
public record Agent(
        AgentId id,
        UserId ownerId,
        Optional<TenantId> tenantId,
        String name,
        AgentType type,
        AgentStatus storedStatus,
        List<Permission> permissions,
        Optional<Instant> expiresAt,
        Map<String, Object> metadata,
        Instant createdAt,
        Instant updatedAt,
        Optional<Budget> budget) {

    public Agent {
        if (storedStatus == AgentStatus.EXPIRED) {
            throw new IllegalArgumentException("expired is derived, not stored");
        }
        permissions = List.copyOf(permissions);
    }

    /** The status clients see at {@code now}: revoked wins, then expiry, then the stored status. */
    public AgentStatus status(Instant now) {
        if (storedStatus == AgentStatus.REVOKED) {
            return AgentStatus.REVOKED;
        }
        if (expiresAt.isPresent() && !now.isBefore(expiresAt.get())) {
            return AgentStatus.EXPIRED;
        }
        return storedStatus;
    }

    /** True when the agent may authenticate and act at {@code now}. */
    public boolean isActive(Instant now) {
        return status(now) == AgentStatus.ACTIVE;
    }
}
