package dev.warden.authorizer.domain;

import java.time.Duration;
import java.util.Optional;

/**
 * A permission that a person must approve before each matching call (docs/approvals.md).
 *
 * @param approvers who may approve: the owner of the agent that holds the grant, or its organization's
 *                  administrators
 * @param validFor  how long an approval allows the same call; empty for once
 */
public record ApprovalRule(Approvers approvers, Optional<Duration> validFor) {
    /** The longest an approval may last. */
    public static final Duration MAX_VALID_FOR = Duration.ofDays(30);

    public ApprovalRule {
        if (validFor.isPresent()
                && (validFor.get().compareTo(Duration.ofSeconds(1)) < 0
                        || validFor.get().compareTo(MAX_VALID_FOR) > 0)) {
            throw new IllegalArgumentException("validFor must be from 1 second to 30 days");
        }
    }

    /** Who may approve. */
    public enum Approvers implements dev.warden.pipeline.contract.WireEnum {
        /** The owner of the agent that holds the grant. */
        OWNER("owner"),
        /** The administrators of that agent's organization (its {@code tenantId}). */
        ORGANIZATION_ADMINS("organization_admins");

        private final String wireName;

        Approvers(String wireName) {
            this.wireName = wireName;
        }

        @Override
        public String wireName() {
            return wireName;
        }
    }
}
