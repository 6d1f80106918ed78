package dev.warden.api.authorize;

import dev.warden.api.access.AccessPolicy;
import dev.warden.api.access.Principal;
import dev.warden.api.approvals.ApprovalService;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.NotFoundException;
import dev.warden.api.errors.WardenException;
import dev.warden.authorizer.condition.Conditions;
import dev.warden.authorizer.condition.DecisionFacts;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.DelegationId;
import dev.warden.authorizer.domain.Ids;
import dev.warden.authorizer.domain.Permission;
import dev.warden.authorizer.engine.ChainWalk;
import dev.warden.authorizer.engine.ConstrainedStep;
import dev.warden.authorizer.engine.DecisionReason;
import dev.warden.authorizer.engine.DecisionRules;
import dev.warden.authorizer.engine.EffectiveGrant;
import dev.warden.authorizer.engine.HourWindow;
import dev.warden.authorizer.quota.QuotaReply;
import dev.warden.authorizer.quota.QuotaRequest;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditResult;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Decides whether an agent may perform an action on a resource (SPEC: Authorization decision) and records
 * the decision: exactly one audit entry per decision, acknowledged by Kafka before the answer.
 *
 * <p>Matching grants are tried in the engine's order. An unconstrained grant allows at once, in process.
 * Constrained grants are tried one after another against the quota owner, which consumes one call from
 * every counter of the grant's chain or none; a denied call consumes nothing. Who may ask: the agent itself,
 * its owner, or the admin; anyone else learns nothing (404). Thread-safe.
 */
public final class AuthorizationService {
    private final PolicyResolver resolver;
    private final QuotaClient quota;
    private final AuditPublisher audit;
    private final InstantSource clock;
    private final DecisionMeters meters;
    private final Conditions conditions;
    private final ApprovalService approvals;

    public AuthorizationService(
            PolicyResolver resolver,
            QuotaClient quota,
            AuditPublisher audit,
            InstantSource clock,
            DecisionMeters meters,
            Conditions conditions,
            ApprovalService approvals) {
        this.conditions = conditions;
        this.approvals = approvals;
        this.resolver = resolver;
        this.quota = quota;
        this.audit = audit;
        this.clock = clock;
        this.meters = meters;
    }

    /**
     * A check to decide.
     *
     * @param ip        the address the caller declared in {@code context.ip}
     * @param userAgent the user agent the caller declared in {@code context.userAgent}
     * @param callerIp  the caller's network address as Warden saw it (after trusted proxies)
     * @param extraContext further context a condition reads in {@code context} (AuthZEN's {@code context}, and its
     *                  subject's and action's properties)
     * @param resourceProperties what a condition reads in {@code resource.properties} (AuthZEN's)
     */
    public record Request(
            AgentId agentId,
            String action,
            String resource,
            Map<String, Object> arguments,
            Optional<String> ip,
            Optional<String> userAgent,
            String callerIp,
            Map<String, Object> extraContext,
            Map<String, Object> resourceProperties) {

        /** A {@code POST /authorize} request: no further context. */
        public Request(
                AgentId agentId,
                String action,
                String resource,
                Map<String, Object> arguments,
                Optional<String> ip,
                Optional<String> userAgent,
                String callerIp) {
            this(agentId, action, resource, arguments, ip, userAgent, callerIp, Map.of(), Map.of());
        }
    }

    /**
     * The answer.
     *
     * @param retryAfterSeconds for {@code RATE_LIMITED}, seconds until the hourly budget resets
     * @param approvalId        for {@code APPROVAL_REQUIRED}, the request to wait on
     */
    public record Decision(
            boolean allowed,
            Optional<DecisionReason> reason,
            String auditId,
            Optional<Long> retryAfterSeconds,
            Optional<String> approvalId) {}

    /** Decides and audits one call. */
    public Decision decide(Principal caller, Request request) {
        Decided decided = decideUnpublished(caller, request);
        audit.publish(decided.entry());
        return decided.recorded(meters);
    }

    /** How a batch of decisions goes on after each one (AuthZEN's {@code options.evaluations_semantic}). */
    public enum Semantic {
        /** Decide every request. */
        EXECUTE_ALL,
        /** Stop after the first denial (or failure). */
        DENY_ON_FIRST_DENY,
        /** Stop after the first permit. */
        PERMIT_ON_FIRST_PERMIT
    }

    /** One answer of a batch: a decision, or why there is none (the agent is not one the caller may ask about). */
    public sealed interface BatchAnswer {
        /** A decision, audited like any other. */
        record Made(Decision decision) implements BatchAnswer {}

        /** No decision: {@code error} says why, as the single call's problem would. */
        record Refused(WardenException error) implements BatchAnswer {}
    }

    /**
     * Decides {@code requests} in order, as {@code semantic} says, and publishes their audit entries together: one
     * request, many audited decisions, acknowledged by Kafka before any answer.
     */
    public List<BatchAnswer> decideAll(Principal caller, List<Request> requests, Semantic semantic) {
        List<Decided> decided = new ArrayList<>(requests.size());
        List<Object> answers = new ArrayList<>(requests.size());
        for (Request request : requests) {
            boolean allowed;
            try {
                Decided d = decideUnpublished(caller, request);
                decided.add(d);
                answers.add(d);
                allowed = d.outcome().result() == AuditResult.ALLOWED;
            } catch (NotFoundException e) {
                answers.add(new BatchAnswer.Refused(e));
                allowed = false;
            }
            if ((semantic == Semantic.DENY_ON_FIRST_DENY && !allowed)
                    || (semantic == Semantic.PERMIT_ON_FIRST_PERMIT && allowed)) {
                break;
            }
        }
        if (!decided.isEmpty()) {
            audit.publishAll(decided.stream().map(Decided::entry).toList());
        }
        List<BatchAnswer> out = new ArrayList<>(answers.size());
        for (Object answer : answers) {
            out.add(answer instanceof Decided d ? new BatchAnswer.Made(d.recorded(meters)) : (BatchAnswer) answer);
        }
        return out;
    }

    /**
     * Whether {@code request} would be allowed now, without deciding it: nothing is audited, no budget is asked or
     * consumed, and no approval is requested. A permission whose conditions hold allows; one that needs an approval
     * does not (approvals are per call; a search does not look them up).
     * What the AuthZEN search endpoints use (docs/authzen.md); an agent the caller may not ask about is never
     * permitted.
     */
    public boolean wouldAllow(Principal caller, Request request) {
        ChainWalk.Result resolved = resolver.resolve(request.agentId());
        if (!AccessPolicy.mayAskAbout(caller, request.agentId(), resolved.agent())
                || resolved.agent().isEmpty()) {
            return false;
        }
        Agent agent = resolved.agent().get();
        Instant now = clock.instant();
        if (DecisionRules.statusReason(agent.status(now)).isPresent()) {
            return false;
        }
        Conditions.Evaluation evaluation = null;
        for (EffectiveGrant grant : resolved.policy().matches(request.action(), request.resource())) {
            if (grant.requiresApproval()) {
                continue;
            }
            if (grant.conditions().isEmpty()) {
                return true;
            }
            if (evaluation == null) {
                evaluation = conditions.evaluation(facts(agent, request, now));
            }
            if (evaluation.firstUnmet(grant.conditions()).isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /**
     * The permissions an agent holds, its own and delegated (empty for one the caller may not ask about or that
     * does not exist): what the AuthZEN search endpoints draw candidate resources and actions from.
     */
    public List<Permission> permissionsOf(Principal caller, AgentId agentId) {
        ChainWalk.Result resolved = resolver.resolve(agentId);
        if (!AccessPolicy.mayAskAbout(caller, agentId, resolved.agent())
                || resolved.agent().isEmpty()) {
            return List.of();
        }
        return resolved.policy().grants().stream()
                .map(EffectiveGrant::permission)
                .toList();
    }

    private static DecisionFacts facts(Agent agent, Request request, Instant now) {
        return new DecisionFacts(
                agent,
                request.action(),
                request.resource(),
                request.arguments(),
                request.callerIp(),
                now,
                request.ip(),
                request.userAgent(),
                request.extraContext(),
                request.resourceProperties());
    }

    /** A decision made and its entry, not yet published: the answer waits for Kafka's acknowledgement. */
    private record Decided(AuditEntry entry, Outcome outcome, long started, long decided) {
        Decision recorded(DecisionMeters meters) {
            meters.decided(
                    outcome.result(),
                    outcome.reason(),
                    decided - started - outcome.quotaNanos(),
                    outcome.quotaNanos(),
                    System.nanoTime() - decided);
            return new Decision(
                    outcome.result() == AuditResult.ALLOWED,
                    outcome.reason(),
                    entry.id(),
                    outcome.retryAfter(),
                    outcome.approvalId());
        }
    }

    private Decided decideUnpublished(Principal caller, Request request) {
        long started = System.nanoTime();
        Instant now = clock.instant();
        ChainWalk.Result resolved = resolver.resolve(request.agentId());
        requireMayAsk(caller, request.agentId(), resolved.agent());
        // Redacted once: the audit entry and an approval request show the arguments the same way
        Map<String, Object> shown = Redactor.redact(request.arguments());
        Outcome outcome = resolved.agent().isEmpty()
                ? Outcome.deny(DecisionReason.AGENT_NOT_FOUND)
                : evaluate(resolved, request, shown, now);
        String auditId = Ids.mint("aud");
        long decided = System.nanoTime();
        double durationMs = (decided - started) / 1_000_000.0;
        AuditEntry entry = new AuditEntry(
                auditId,
                request.agentId().value(),
                resolved.agent().map(a -> a.ownerId().value()),
                caller.subjectId(),
                request.action(),
                request.resource(),
                shown,
                outcome.result(),
                outcome.reason().map(Enum::name),
                durationMs,
                0,
                now,
                request.ip(),
                request.userAgent(),
                Optional.of(request.callerIp()),
                outcome.detail(),
                outcome.delegationChain());
        return new Decided(entry, outcome, started, decided);
    }

    private Outcome evaluate(ChainWalk.Result resolved, Request request, Map<String, Object> shown, Instant now) {
        Agent agent = resolved.agent().orElseThrow();
        Optional<DecisionReason> inactive = DecisionRules.statusReason(agent.status(now));
        if (inactive.isPresent()) {
            return Outcome.deny(inactive.get());
        }
        Optional<EffectiveGrant> first = resolved.policy().firstMatch(request.action(), request.resource());
        if (first.isEmpty()) {
            return Outcome.deny(DecisionReason.NO_MATCHING_PERMISSION);
        }
        if (first.get().isUnrestricted()) {
            return first.get().delegations().isEmpty()
                    ? Outcome.ALLOW
                    : Outcome.allow(Optional.empty(), 0, chainOf(first.get()));
        }
        Conditions.Evaluation conditionsOfThisCall = conditions.evaluation(facts(agent, request, now));
        long hour = HourWindow.hourOf(now);
        long quotaNanos = 0;
        Optional<Conditions.Unmet> firstUnmet = Optional.empty();
        Optional<ApprovalService.Gate.Pending> pending = Optional.empty();
        boolean budgetsAsked = false;
        for (EffectiveGrant grant : resolved.policy().matches(request.action(), request.resource())) {
            Optional<Conditions.Unmet> unmet = conditionsOfThisCall.firstUnmet(grant.conditions());
            if (unmet.isPresent()) {
                firstUnmet = firstUnmet.or(() -> unmet);
                continue;
            }
            Optional<ApprovalService.Gate.Granted> approved = Optional.empty();
            if (grant.requiresApproval()) {
                ApprovalService.Gate gate = approvals.gate(
                        agent, grant, request.action(), request.resource(), request.arguments(), shown, now);
                if (gate instanceof ApprovalService.Gate.Pending p) {
                    pending = pending.or(() -> Optional.of(p));
                    continue;
                }
                approved = Optional.of((ApprovalService.Gate.Granted) gate);
            }
            Optional<String> detail = approved.map(g -> "allowed by approval " + g.approvalId());
            if (!grant.isConstrained()) {
                return Outcome.allow(detail, quotaNanos, chainOf(grant));
            }
            long asked = System.nanoTime();
            boolean granted = consume(grant, hour).granted();
            quotaNanos += System.nanoTime() - asked;
            budgetsAsked = true;
            if (granted) {
                return Outcome.allow(detail, quotaNanos, chainOf(grant));
            }
            approved.ifPresent(approvals::restore);
        }
        if (pending.isPresent()) {
            ApprovalService.Gate.Pending p = pending.get();
            return new Outcome(
                    AuditResult.DENIED,
                    Optional.of(DecisionReason.APPROVAL_REQUIRED),
                    Optional.of("approval " + p.approvalId() + (p.created() ? " requested" : " pending")),
                    Optional.empty(),
                    Optional.of(p.approvalId()),
                    quotaNanos);
        }
        if (!budgetsAsked) {
            Conditions.Unmet unmet = firstUnmet.orElseThrow();
            return new Outcome(
                    AuditResult.DENIED,
                    Optional.of(DecisionReason.CONDITION_NOT_MET),
                    Optional.of("condition of " + unmet.step().describe() + ": " + unmet.why()),
                    Optional.empty(),
                    Optional.empty(),
                    quotaNanos);
        }
        long retryAfter = HourWindow.secondsUntilNextHour(now);
        return new Outcome(
                AuditResult.RATE_LIMITED,
                Optional.of(DecisionReason.RATE_LIMITED),
                Optional.empty(),
                Optional.of(retryAfter),
                Optional.empty(),
                quotaNanos);
    }

    /** The delegations {@code grant} comes through, as the audit entry names them. */
    private static List<String> chainOf(EffectiveGrant grant) {
        return grant.delegations().stream().map(DelegationId::value).toList();
    }

    private QuotaReply consume(EffectiveGrant grant, long hour) {
        List<ConstrainedStep> steps = grant.constraints();
        // Every chain through a counter shares the topmost constrained grant above it: keying by that
        // grant's counter puts all counters a request touches on one partition, with one owner.
        String partitionKey = steps.getLast().counterKey();
        return quota.consume(
                partitionKey,
                hour,
                steps.stream()
                        .map(s -> new QuotaRequest.Step(s.counterKey(), s.maxCallsPerHour()))
                        .toList());
    }

    private static void requireMayAsk(Principal caller, AgentId agentId, Optional<Agent> agent) {
        if (!AccessPolicy.mayAskAbout(caller, agentId, agent)) {
            throw new NotFoundException(ErrorCode.AGENT_NOT_FOUND, "no such agent");
        }
    }

    /**
     * A decision, and the time spent asking the quota owner for it (0 when it was not asked).
     *
     * @param detail what the audit entry says beyond the reason (which permission's condition did not hold)
     */
    private record Outcome(
            AuditResult result,
            Optional<DecisionReason> reason,
            Optional<String> detail,
            Optional<Long> retryAfter,
            Optional<String> approvalId,
            long quotaNanos,
            List<String> delegationChain) {
        static final Outcome ALLOW = allow(Optional.empty(), 0, List.of());

        Outcome(
                AuditResult result,
                Optional<DecisionReason> reason,
                Optional<String> detail,
                Optional<Long> retryAfter,
                Optional<String> approvalId,
                long quotaNanos) {
            this(result, reason, detail, retryAfter, approvalId, quotaNanos, List.of());
        }

        /** Allowed, through {@code delegationChain} (empty: by the agent's own permission). */
        static Outcome allow(Optional<String> detail, long quotaNanos, List<String> delegationChain) {
            return new Outcome(
                    AuditResult.ALLOWED,
                    Optional.empty(),
                    detail,
                    Optional.empty(),
                    Optional.empty(),
                    quotaNanos,
                    delegationChain);
        }

        static Outcome deny(DecisionReason reason) {
            return new Outcome(
                    AuditResult.DENIED, Optional.of(reason), Optional.empty(), Optional.empty(), Optional.empty(), 0);
        }
    }
}
