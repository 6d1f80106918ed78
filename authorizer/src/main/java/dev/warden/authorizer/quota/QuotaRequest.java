package dev.warden.authorizer.quota;

import java.util.List;

/**
 * Asks the quota owner to consume one call from every counter in {@code steps} for clock hour {@code hour}
 * (hours since the epoch, UTC), all or nothing. Published on {@code warden.quota.requests} keyed by the
 * chain's root agent, so every counter a request touches is owned by one stream task.
 *
 * @param requestId correlates the reply
 * @param replyTo   the API instance id the reply is keyed by
 */
public record QuotaRequest(String requestId, String replyTo, long hour, List<Step> steps) {
    public QuotaRequest {
        steps = List.copyOf(steps);
        if (steps.isEmpty()) {
            throw new IllegalArgumentException("a quota request needs at least one step");
        }
    }

    /** One counter and its limit per hour. */
    public record Step(String counterKey, long limit) {
        public Step {
            if (limit < 1) {
                throw new IllegalArgumentException("limit must be at least 1");
            }
        }
    }
}
