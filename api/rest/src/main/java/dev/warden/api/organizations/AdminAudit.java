package dev.warden.api.organizations;

import dev.warden.api.access.OrgAuthority;
import dev.warden.api.access.Principal;
import dev.warden.authorizer.domain.Ids;
import dev.warden.pipeline.contract.AuditEntry;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The audit entry of an administrative action (docs/organizations.md, "Audit"). Stored on {@code warden.audit}
 * with the change, so it reaches the audit log, the sinks and (as an {@code audit} event) the stream like a
 * decision. Its fields: {@code action} one of {@code admin.*}; {@code callerId} the actor; {@code agentId} the
 * agent acted on ({@code ""} otherwise); {@code userId} the user affected (the agent's owner, the member); {@code
 * resource} {@code organization:<id>[/<kind>:<id>]}; {@code parameters} {@code {organization, actor: {kind, id},
 * target: {kind, id}, before?, after?}}.
 */
public final class AdminAudit {
    /** Every administrative action's name starts with this; the decision aggregates skip them. */
    public static final String PREFIX = AuditEntry.ADMINISTRATIVE_PREFIX;

    private AdminAudit() {}

    /** What was acted on. */
    public record Target(String kind, String id, String agentId, Optional<String> userId) {
        /** A member, custom role or the organization itself: no agent. */
        public static Target of(String kind, String id, Optional<String> userId) {
            return new Target(kind, id, "", userId);
        }
    }

    /**
     * The entry for {@code action} ({@code admin.} is prefixed) by {@code authority}'s actor on {@code target},
     * with the state {@code before} and {@code after} where they apply.
     */
    public static AuditEntry entry(
            String action,
            OrgAuthority authority,
            Target target,
            Optional<Object> before,
            Optional<Object> after,
            Instant at) {
        return entry(action, authority.actor(), authority.organizationId(), target, before, after, at);
    }

    /** As {@link #entry(String, OrgAuthority, Target, Optional, Optional, Instant)}, for an actor without authority yet. */
    public static AuditEntry entry(
            String action,
            Principal actor,
            String organizationId,
            Target target,
            Optional<Object> before,
            Optional<Object> after,
            Instant at) {
        Map<String, Object> parameters = new LinkedHashMap<>();
        parameters.put("organization", organizationId);
        parameters.put("actor", Map.of("kind", actor.kind(), "id", actor.subjectId()));
        parameters.put("target", Map.of("kind", target.kind(), "id", target.id()));
        before.ifPresent(b -> parameters.put("before", b));
        after.ifPresent(a -> parameters.put("after", a));
        String resource = "organization:" + organizationId
                + (target.kind().equals("organization") ? "" : "/" + target.kind() + ":" + target.id());
        return AuditEntry.administrative(
                Ids.mint("aud"),
                action,
                target.agentId(),
                target.userId(),
                actor.subjectId(),
                resource,
                parameters,
                at);
    }
}
