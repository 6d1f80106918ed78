package dev.warden.authorizer.engine;

/** Why {@code POST /authorize} denied a call: the stable {@code reason} codes (docs/authorization.md). */
public enum DecisionReason {
    /** No agent with this id (answered to the admin only; others get a 404). */
    AGENT_NOT_FOUND,
    /** The agent is revoked. */
    AGENT_REVOKED,
    /** The agent is past its {@code expiresAt}. */
    AGENT_EXPIRED,
    /** The agent is suspended. */
    AGENT_SUSPENDED,
    /** No effective permission allows this action on this resource. */
    NO_MATCHING_PERMISSION,
    /** Every matching permission's hourly budget is used up. */
    RATE_LIMITED,
    /** Permissions match, but a condition of each of them (its own or one above it in the chain) does not hold. */
    CONDITION_NOT_MET,
    /** A matching permission needs a person's approval first; the answer names the approval request. */
    APPROVAL_REQUIRED
}
