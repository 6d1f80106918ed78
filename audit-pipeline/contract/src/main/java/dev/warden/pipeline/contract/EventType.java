package dev.warden.pipeline.contract;

/**
 * Every stream event type (SPEC: Events). The first twelve are the SPEC's; the rest are additive lifecycle
 * types Warden also emits (SPEC Versioning 3: new event actions need no major bump).
 */
public enum EventType implements WireEnum {
    AUDIT("audit"),
    AGENT_CREATED("agent.created"),
    AGENT_REVOKED("agent.revoked"),
    AGENT_ROTATED("agent.rotated"),
    AUTH_SIGNIN("auth.signin"),
    AUTH_SIGNOUT("auth.signout"),
    AUTH_FAILED("auth.failed"),
    DELEGATION_CREATED("delegation.created"),
    DELEGATION_REVOKED("delegation.revoked"),
    BUDGET_EXCEEDED("budget.exceeded"),
    ANOMALY_DETECTED("anomaly.detected"),
    COST_RECORDED("cost.recorded"),
    AGENT_UPDATED("agent.updated"),
    AGENT_SUSPENDED("agent.suspended"),
    AGENT_RESUMED("agent.resumed"),
    APPROVAL_REQUESTED("approval.requested"),
    APPROVAL_APPROVED("approval.approved"),
    APPROVAL_DENIED("approval.denied"),
    AUTH_LOCKED("auth.locked"),
    AUTH_PASSWORD_RESET("auth.password_reset");

    private final String wireName;

    EventType(String wireName) {
        this.wireName = wireName;
    }

    @Override
    public String wireName() {
        return wireName;
    }

    /**
     * True for the events that change who may do what (an agent's or a delegation's lifecycle): every instance
     * drops its cached policies and agent tokens when it learns of one.
     */
    public boolean changesAccess() {
        return wireName.startsWith("agent.") || wireName.startsWith("delegation.");
    }
}
