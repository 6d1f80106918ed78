package dev.warden.api.approvals;

import dev.warden.authorizer.domain.ApprovalRule;
import dev.warden.pipeline.contract.WireEnum;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A request for a person's approval of one call (docs/approvals.md): the agent, action, resource and arguments it
 * is keyed by (the arguments as a hash, and as the audit log shows them, secrets redacted), who may decide, and
 * what became of it.
 *
 * @param approverScope the user ({@code owner}) or organization ({@code organization_admins}) whose people decide
 * @param delegations   the delegations the matching grant came through; revoking any of them ends the request
 * @param validFor      how long an approval allows the same call; empty for once
 * @param expiresAt     when a pending request expires
 * @param grantedUntil  when an approval stops allowing the call
 */
public record Approval(
        String id,
        String agentId,
        String ownerId,
        String action,
        String resource,
        String argumentsHash,
        Map<String, Object> arguments,
        Status status,
        ApprovalRule.Approvers approvers,
        String approverScope,
        List<String> delegations,
        Optional<Duration> validFor,
        Instant requestedAt,
        Instant expiresAt,
        Optional<String> decidedBy,
        Optional<Instant> decidedAt,
        Optional<String> note,
        Optional<Instant> grantedUntil,
        Optional<Instant> usedAt) {

    public Approval {
        delegations = List.copyOf(delegations);
    }

    /** This request as decided: {@code status} by {@code decidedBy} at {@code decidedAt}, with its note. */
    public Approval decided(
            Status status, String decidedBy, Instant decidedAt, Optional<String> note, Optional<Instant> grantedUntil) {
        return new Approval(
                id,
                agentId,
                ownerId,
                action,
                resource,
                argumentsHash,
                arguments,
                status,
                approvers,
                approverScope,
                delegations,
                validFor,
                requestedAt,
                expiresAt,
                Optional.of(decidedBy),
                Optional.of(decidedAt),
                note,
                grantedUntil,
                usedAt);
    }

    /** Where a request stands. */
    public enum Status implements WireEnum {
        /** Waiting for a decision. */
        PENDING("pending"),
        /** Approved: the call is allowed, once or until {@code grantedUntil}. */
        APPROVED("approved"),
        /** Denied by an approver. */
        DENIED("denied"),
        /** Not decided in time, or approved and not used in time. */
        EXPIRED("expired"),
        /** Ended by the revocation of the agent or of a delegation it came through. */
        CANCELLED("cancelled"),
        /** Approved for once, and used. */
        USED("used");

        private final String wireName;

        Status(String wireName) {
            this.wireName = wireName;
        }

        @Override
        public String wireName() {
            return wireName;
        }
    }
}
