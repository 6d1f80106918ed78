package dev.warden.api.approvals;

import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.warden.api.access.AccessPolicy;
import dev.warden.api.access.Principal;
import dev.warden.api.errors.ConflictException;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.NotFoundException;
import dev.warden.api.errors.WardenException;
import dev.warden.api.oauth.ciba.BackchannelApprovals;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.ApprovalRule;
import dev.warden.authorizer.domain.DelegationId;
import dev.warden.authorizer.domain.Ids;
import dev.warden.authorizer.engine.ApprovalStep;
import dev.warden.authorizer.engine.EffectiveGrant;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.Json;
import dev.warden.pipeline.contract.StreamEvent;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Approval-required permissions (docs/approvals.md): the request a matching call makes, the approval that lets the
 * same call through, and the people who decide. State lives in PostgreSQL, so every instance sees the same requests
 * and a revocation ends them everywhere at once. Thread-safe.
 */
public final class ApprovalService {
    /** How long a request waits for a decision, and an approval for once waits to be used. */
    public static final Duration PENDING_FOR = Duration.ofHours(24);
    /** The longest {@code wait} of a long poll. */
    public static final Duration MAX_WAIT = Duration.ofSeconds(60);
    /** The most requests one list answers with. */
    public static final int MAX_LIST = 200;

    private static final ObjectWriter CANONICAL = Json.mapper()
            .copy()
            .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true)
            .writer();
    private static final Duration POLL_INTERVAL = Duration.ofMillis(200);
    /** What a request id looks like; anything else names no request (404, nothing read). */
    private static final java.util.regex.Pattern ID = java.util.regex.Pattern.compile("apr_[A-Za-z0-9]{1,64}");

    private final JdbcApprovalRepository repository;
    private final Function<AgentId, Optional<Agent>> agents;
    private final OrganizationAdmins organizationAdmins;
    private final Notifier notifier;
    private final InstantSource clock;

    /** Who holds {@code approvals:admin} in an organization. */
    @FunctionalInterface
    public interface OrganizationAdmins {
        /** True when {@code caller} may decide for organization {@code organizationId}. */
        boolean isAdmin(Principal caller, String organizationId);

        /** The organizations in which {@code caller} may decide; by default none is listed. */
        default List<String> of(Principal caller) {
            return List.of();
        }
    }

    /**
     * Tells approvers of a new request in the transaction that records it (docs/approvals.md: by e-mail to an owner
     * with a verified address), so a request is announced if and only if it is stored.
     */
    @FunctionalInterface
    public interface Notifier {
        /** Nobody is told (no mail configured). */
        Notifier NONE = (conn, approval) -> {};

        void requested(java.sql.Connection conn, Approval approval) throws java.sql.SQLException;

        /** Runs once the transaction that recorded a request has committed (e.g. to wake the mail worker). */
        default void committed() {}
    }

    public ApprovalService(
            JdbcApprovalRepository repository,
            Function<AgentId, Optional<Agent>> agents,
            OrganizationAdmins organizationAdmins,
            Notifier notifier,
            InstantSource clock) {
        this.notifier = notifier;
        this.repository = repository;
        this.agents = agents;
        this.organizationAdmins = organizationAdmins;
        this.clock = clock;
    }

    /** What a call through an approval-requiring grant gets: let through by an approval, or a pending request. */
    public sealed interface Gate {
        String approvalId();

        /** An approval allows the call; for once, it is now used. */
        record Granted(String approvalId, boolean once) implements Gate {}

        /** The call waits for the request {@code approvalId}. */
        record Pending(String approvalId, boolean created) implements Gate {}
    }

    /**
     * The gate of a call by {@code agent} through {@code grant} (which requires approval): an approval that allows
     * it, else the pending request for it, made now when there is none.
     */
    public Gate gate(
            Agent agent,
            EffectiveGrant grant,
            String action,
            String resource,
            Map<String, Object> arguments,
            Map<String, Object> shownArguments,
            Instant now) {
        List<String> delegations =
                grant.delegations().stream().map(DelegationId::value).toList();
        String hash = hash(arguments);
        JdbcApprovalRepository.Key key =
                new JdbcApprovalRepository.Key(agent.id().value(), action, resource, hash, delegations);
        Optional<JdbcApprovalRepository.Granted> granted = repository.useGranted(key, now);
        if (granted.isPresent()) {
            return new Gate.Granted(granted.get().id(), granted.get().once());
        }
        // The step nearest the chain's source names who decides; the shortest validity of any step applies.
        ApprovalStep governing = grant.approvals().getLast();
        Agent holder = governing.origin().holder().equals(agent.id())
                ? agent
                : agents.apply(governing.origin().holder()).orElse(agent);
        // An agent without an organization falls back to its owner.
        boolean toOrganization = governing.rule().approvers() == ApprovalRule.Approvers.ORGANIZATION_ADMINS
                && holder.tenantId().isPresent();
        ApprovalRule.Approvers approvers =
                toOrganization ? ApprovalRule.Approvers.ORGANIZATION_ADMINS : ApprovalRule.Approvers.OWNER;
        String scope = toOrganization
                ? holder.tenantId().get().value()
                : holder.ownerId().value();
        Optional<Duration> validFor = Optional.empty();
        boolean once = false;
        for (ApprovalStep step : grant.approvals()) {
            if (step.rule().validFor().isEmpty()) {
                once = true;
            } else if (validFor.isEmpty() || step.rule().validFor().get().compareTo(validFor.get()) < 0) {
                validFor = step.rule().validFor();
            }
        }
        if (once) {
            validFor = Optional.empty();
        }
        String id = Ids.mint("apr");
        Instant expiresAt = now.plus(PENDING_FOR);
        Approval request = new Approval(
                id,
                agent.id().value(),
                agent.ownerId().value(),
                action,
                resource,
                hash,
                shownArguments,
                Approval.Status.PENDING,
                approvers,
                scope,
                delegations,
                validFor,
                now,
                expiresAt,
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty());
        JdbcApprovalRepository.Requested requested =
                repository.request(request, event(EventType.APPROVAL_REQUESTED, request), notifier);
        return new Gate.Pending(requested.id(), requested.created());
    }

    /** Puts back an approval for once that a call used and was then refused for another reason. */
    public void restore(Gate.Granted granted) {
        if (granted.once()) {
            repository.restore(granted.approvalId());
        }
    }

    /**
     * The request {@code id} as {@code caller} may see it; with a {@code wait}, answers when it is no longer pending
     * or when the wait is over, whichever is first (a long poll).
     *
     * @throws NotFoundException for a request that does not exist or that {@code caller} may not see
     */
    public Approval get(Principal caller, String id, Duration wait) {
        Approval approval = visible(caller, id);
        Instant until = clock.instant().plus(wait.compareTo(MAX_WAIT) > 0 ? MAX_WAIT : wait);
        while (approval.status() == Approval.Status.PENDING && clock.instant().isBefore(until)) {
            try {
                Thread.sleep(POLL_INTERVAL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            approval = repository.find(id, clock.instant()).orElseThrow(ApprovalService::notFound);
        }
        return approval;
    }

    /**
     * The newest requests {@code caller} may see (with {@code status} when given), newest first: a person's are those
     * they may decide and those about their agents.
     */
    public List<Approval> list(Principal caller, Optional<Approval.Status> status, int limit) {
        int bounded = Math.min(Math.max(limit, 1), MAX_LIST);
        Instant now = clock.instant();
        return switch (AccessPolicy.approvalListing(caller)) {
            case AccessPolicy.ApprovalListing.All all -> repository.list(true, List.of(), "", "", status, bounded, now);
            case AccessPolicy.ApprovalListing.OfAgent agent ->
                repository.list(false, List.of(), agent.agent().value(), "", status, bounded, now);
            case AccessPolicy.ApprovalListing.OfPerson person -> {
                List<String> scopes = new ArrayList<>(organizationAdmins.of(caller));
                scopes.add(person.user().value());
                yield repository.list(false, scopes, "", person.user().value(), status, bounded, now);
            }
        };
    }

    /**
     * Approves or denies the pending request {@code id}, with an optional {@code note}: audited, and announced on
     * the stream and to webhooks.
     *
     * @throws NotFoundException  when {@code caller} may not see it
     * @throws ConflictException  when it is no longer pending
     * @throws dev.warden.api.errors.ForbiddenException when {@code caller} may see it but not decide (the agent)
     */
    public Approval decide(Principal caller, String id, boolean approve, Optional<String> note) {
        Approval approval = visible(caller, id);
        AccessPolicy.requireNotAgent(caller, "an agent cannot decide approval requests");
        if (!mayDecide(caller, approval)) {
            throw new dev.warden.api.errors.ForbiddenException(
                    ErrorCode.FORBIDDEN,
                    "only the request's approvers decide it ("
                            + approval.approvers().wireName() + ")");
        }
        if (approval.status() != Approval.Status.PENDING) {
            throw notPending(approval);
        }
        Instant now = clock.instant();
        Instant grantedUntil = now.plus(approval.validFor().orElse(PENDING_FOR));
        Approval decided = approval.decided(
                approve ? Approval.Status.APPROVED : Approval.Status.DENIED,
                caller.subjectId(),
                now,
                note,
                approve ? Optional.of(grantedUntil) : Optional.empty());
        boolean done = repository.decide(
                id,
                approve,
                caller.subjectId(),
                note,
                grantedUntil,
                now,
                event(approve ? EventType.APPROVAL_APPROVED : EventType.APPROVAL_DENIED, decided),
                audit(caller, decided, now));
        if (!done) {
            throw notPending(repository.find(id, now).orElse(approval));
        }
        return decided;
    }

    /** The action an OpenID CIBA request is recorded with: an agent asks its owner for a grant of scopes. */
    public static final String BACKCHANNEL_ACTION = "oauth.backchannel";

    /**
     * OpenID CIBA requests as approval requests (docs/approvals.md): an agent bound as an OAuth client asks its
     * owner, who decides as for any request; the client's poll takes the approval once.
     */
    public BackchannelApprovals backchannel() {
        return new BackchannelApprovals() {
            @Override
            public String request(
                    String agentId,
                    String authRequestKey,
                    String scope,
                    String resource,
                    Optional<String> bindingMessage,
                    Instant expiresAt,
                    Instant now) {
                Agent agent = agents.apply(AgentId.of(agentId)).orElseThrow();
                Map<String, Object> shown = new LinkedHashMap<>();
                shown.put("scope", scope);
                bindingMessage.ifPresent(m -> shown.put("bindingMessage", m));
                Approval request = new Approval(
                        Ids.mint("apr"),
                        agentId,
                        agent.ownerId().value(),
                        BACKCHANNEL_ACTION,
                        resource,
                        authRequestKey,
                        shown,
                        Approval.Status.PENDING,
                        ApprovalRule.Approvers.OWNER,
                        agent.ownerId().value(),
                        List.of(),
                        Optional.empty(),
                        now,
                        expiresAt,
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty());
                return repository
                        .request(request, event(EventType.APPROVAL_REQUESTED, request), notifier)
                        .id();
            }

            @Override
            public Outcome take(String approvalId, String agentId, String authRequestKey, Instant now) {
                Optional<Approval> found = repository
                        .find(approvalId, now)
                        .filter(a ->
                                a.agentId().equals(agentId) && a.argumentsHash().equals(authRequestKey));
                if (found.isEmpty()) {
                    return Outcome.ENDED;
                }
                Approval a = found.get();
                return switch (a.status()) {
                    case PENDING -> Outcome.PENDING;
                    case DENIED -> Outcome.DENIED;
                    case APPROVED ->
                        repository
                                        .useGranted(
                                                new JdbcApprovalRepository.Key(
                                                        agentId, a.action(), a.resource(), authRequestKey, List.of()),
                                                now)
                                        .isPresent()
                                ? Outcome.GRANTED
                                : Outcome.ENDED;
                    default -> Outcome.ENDED;
                };
            }
        };
    }

    /** Ends every live request about {@code agent}, which was revoked. */
    public void cancelFor(AgentId agent) {
        repository.cancelForAgent(agent.value());
    }

    private Approval visible(Principal caller, String id) {
        if (!ID.matcher(id).matches()) {
            throw notFound();
        }
        Approval approval = repository.find(id, clock.instant()).orElseThrow(ApprovalService::notFound);
        if (!AccessPolicy.maySeeApproval(caller, approval.agentId(), approval.ownerId(), mayDecide(caller, approval))) {
            throw notFound();
        }
        return approval;
    }

    private boolean mayDecide(Principal caller, Approval approval) {
        Predicate<String> organizationAdmin = org -> {
            try {
                return organizationAdmins.isAdmin(caller, org);
            } catch (WardenException e) {
                return false;
            }
        };
        return AccessPolicy.mayDecideApproval(
                caller, approval.approvers(), approval.approverScope(), organizationAdmin);
    }

    private static StreamEvent.Draft event(EventType type, Approval a) {
        return new StreamEvent.Draft(
                type,
                a.decidedAt().orElse(a.requestedAt()),
                ApprovalJson.eventData(a),
                Optional.of(a.agentId()),
                Optional.of(a.ownerId()));
    }

    private static AuditEntry audit(Principal caller, Approval a, Instant at) {
        Map<String, Object> parameters = new LinkedHashMap<>();
        parameters.put("actor", Map.of("kind", caller.kind(), "id", caller.subjectId()));
        parameters.put("target", Map.of("kind", "approval", "id", a.id()));
        parameters.put("call", Map.of("action", a.action(), "resource", a.resource()));
        parameters.put("status", a.status().wireName());
        a.note().ifPresent(n -> parameters.put("note", n));
        return AuditEntry.administrative(
                Ids.mint("aud"),
                "approval." + (a.status() == Approval.Status.APPROVED ? "approve" : "deny"),
                a.agentId(),
                Optional.of(a.ownerId()),
                caller.subjectId(),
                "approval:" + a.id(),
                parameters,
                at);
    }

    /** The SHA-256 of the arguments' canonical JSON (keys sorted at every depth), hex. */
    static String hash(Map<String, Object> arguments) {
        try {
            byte[] canonical = CANONICAL.writeValueAsString(arguments).getBytes(StandardCharsets.UTF_8);
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(canonical));
        } catch (NoSuchAlgorithmException | com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static NotFoundException notFound() {
        return new NotFoundException(ErrorCode.APPROVAL_NOT_FOUND, "no such approval request");
    }

    private static ConflictException notPending(Approval approval) {
        return new ConflictException(
                ErrorCode.APPROVAL_NOT_PENDING,
                "the approval request is " + approval.status().wireName());
    }
}
