package dev.warden.pipeline.contract;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One audit record on {@code warden.audit} (SPEC: Audit entry), keyed by agent id. Immutable.
 *
 * @param userId     the user on whose behalf the agent acts: the agent's owner (empty for an unknown agent, written as {@code ""})
 * @param callerId   who asked for the decision: the agent itself, its owner, or {@code admin}
 * @param parameters the call's arguments with secret-like values redacted (JSON values; null allowed)
 * @param reason     why a call was denied (a {@code DecisionReason} code); empty when allowed
 * @param ip           client IP from the request's context, if given (what the caller declared)
 * @param userAgent    client user agent from the request's context, if given
 * @param callerIp     the network address of the caller as Warden saw it (after trusted proxies), where known
 * @param reasonDetail what the denial's reason does not say alone: for {@code CONDITION_NOT_MET}, the permission whose
 *                     condition did not hold and why
 * @param delegationChain for a decision allowed through delegations, their ids from the agent's own link to the
 *                     source's (empty when the agent's own permission allowed it, and for every other entry)
 */
public record AuditEntry(
        String id,
        String agentId,
        Optional<String> userId,
        String callerId,
        String action,
        String resource,
        Map<String, Object> parameters,
        AuditResult result,
        Optional<String> reason,
        double durationMs,
        long tokensCost,
        Instant timestamp,
        Optional<String> ip,
        Optional<String> userAgent,
        Optional<String> callerIp,
        Optional<String> reasonDetail,
        List<String> delegationChain) {

    /**
     * The prefix of an administrative action's name ({@code admin.agent.revoke}, ...): a record of what an
     * administrator changed, not a decision, so the decision aggregates (dashboard, anomalies) skip it.
     */
    public static final String ADMINISTRATIVE_PREFIX = "admin.";

    /**
     * The entry of administrative action {@code action} ({@link #ADMINISTRATIVE_PREFIX} is prefixed): who did it
     * ({@code callerId}), on what ({@code resource}; {@code agentId} and {@code userId} when an agent or a person is
     * affected), with what ({@code parameters}); always {@code allowed}, without the fields of a decision.
     */
    public static AuditEntry administrative(
            String id,
            String action,
            String agentId,
            Optional<String> userId,
            String callerId,
            String resource,
            Map<String, Object> parameters,
            Instant at) {
        return new AuditEntry(
                id,
                agentId,
                userId,
                callerId,
                ADMINISTRATIVE_PREFIX + action,
                resource,
                parameters,
                AuditResult.ALLOWED,
                Optional.empty(),
                0,
                0,
                at,
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty());
    }

    /** This entry with {@code address} as the caller's network address (an administrative entry of a sign-in). */
    public AuditEntry withCallerIp(String address) {
        return new AuditEntry(
                id,
                agentId,
                userId,
                callerId,
                action,
                resource,
                parameters,
                result,
                reason,
                durationMs,
                tokensCost,
                timestamp,
                ip,
                userAgent,
                address == null || address.isEmpty() ? Optional.empty() : Optional.of(address),
                reasonDetail,
                delegationChain);
    }

    /** An entry allowed by no delegation (every administrative entry, and a decision by the agent's own permission). */
    public AuditEntry(
            String id,
            String agentId,
            Optional<String> userId,
            String callerId,
            String action,
            String resource,
            Map<String, Object> parameters,
            AuditResult result,
            Optional<String> reason,
            double durationMs,
            long tokensCost,
            Instant timestamp,
            Optional<String> ip,
            Optional<String> userAgent,
            Optional<String> callerIp,
            Optional<String> reasonDetail) {
        this(
                id,
                agentId,
                userId,
                callerId,
                action,
                resource,
                parameters,
                result,
                reason,
                durationMs,
                tokensCost,
                timestamp,
                ip,
                userAgent,
                callerIp,
                reasonDetail,
                List.of());
    }

    public AuditEntry {
        delegationChain = List.copyOf(delegationChain);
        // Not Map.copyOf: a JSON null is a legitimate argument value and is audited as null.
        parameters = Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
    }

    /** True for the record of an administrative action rather than of a decision. */
    public boolean isAdministrative() {
        return action.startsWith(ADMINISTRATIVE_PREFIX);
    }
}
