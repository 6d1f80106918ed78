package dev.warden.authorizer.domain;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A delegation of a subset of {@code fromAgent}'s effective permissions to {@code toAgent} (SPEC:
 * Delegation). Immutable.
 *
 * @param depth     position in the chain: 1 when every delegated permission is the source's own
 * @param maxDepth  the smallest {@code maxDepth} along the chain (this request's and every ancestor's)
 * @param ancestors every delegation this one derives from, transitively
 * @param revokedAt set once revoked; a revoked delegation grants nothing and never comes back
 */
public record Delegation(
        DelegationId id,
        AgentId fromAgent,
        AgentId toAgent,
        List<Permission> permissions,
        int depth,
        int maxDepth,
        List<DelegationId> ancestors,
        Optional<Instant> expiresAt,
        Instant createdAt,
        Optional<Instant> revokedAt) {

    public Delegation {
        permissions = List.copyOf(permissions);
        ancestors = List.copyOf(ancestors);
    }

    /** True when the delegation grants its permissions at {@code now}: not revoked and not expired. */
    public boolean isActive(Instant now) {
        return revokedAt.isEmpty() && expiresAt.map(now::isBefore).orElse(true);
    }
}
