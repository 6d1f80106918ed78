package dev.warden.api.delegations;

import dev.warden.api.authorize.PolicyResolver;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.Delegation;
import dev.warden.authorizer.domain.DelegationId;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.runtime.db.Keyset;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/** Storage of delegations; writes store their events atomically (transactional outbox). */
public interface DelegationRepository extends PolicyResolver.IncomingDelegations {

    /** Stores a new delegation with its events. */
    void create(Delegation delegation, List<StreamEvent.Draft> events);

    /** The delegation with this id, revoked or not. */
    Optional<Delegation> find(DelegationId id);

    /** Delegations not revoked whose target is {@code agent} (expiry is the caller's to check). */
    List<Delegation> unrevokedTo(AgentId agent);

    /**
     * The delegations into {@code agent} that granted at {@code at}: created by then, and neither revoked nor
     * expired at that moment (revoked rows are kept, so a past chain can be shown as it stood).
     */
    List<Delegation> inForceTo(AgentId agent, Instant at);

    /** Delegations not revoked, optionally filtered by source and target, oldest first, at most {@value #LIST_CAP}. */
    default List<Delegation> listUnrevoked(Optional<AgentId> from, Optional<AgentId> to) {
        return listUnrevoked(from, to, Optional.empty(), LIST_CAP);
    }

    /** The most delegations an unpaged list answers. */
    int LIST_CAP = 10_000;

    /**
     * At most {@code limit} delegations not revoked, optionally filtered by source and target, oldest first (by
     * creation, then id), strictly after {@code after} when given.
     */
    List<Delegation> listUnrevoked(Optional<AgentId> from, Optional<AgentId> to, Optional<Keyset> after, int limit);

    /**
     * One page of the unrevoked delegations whose source agent's tenant is {@code tenant}, newest first, after
     * {@code after} when given.
     */
    List<Delegation> pageOfTenant(String tenant, Optional<Keyset> after, int limit);

    /** Every delegation from {@code from} to {@code to}, revoked or not, oldest first. */
    List<Delegation> between(AgentId from, AgentId to);

    /**
     * Revokes the delegations chosen by {@code scope} and every delegation derived from them, in one
     * transaction, with the events and audit entries {@code records} makes of the revoked ones (nothing when
     * none was left to revoke).
     *
     * @return the delegations this call revoked (already revoked ones are left alone)
     */
    List<Delegation> revokeCascade(Scope scope, String reason, Instant at, Function<List<Delegation>, Records> records);

    /** What a revocation writes with it: its events and, for an administrative action, its audit entry. */
    record Records(List<StreamEvent.Draft> events, List<AuditEntry> audit) {
        public Records {
            events = List.copyOf(events);
            audit = List.copyOf(audit);
        }
    }

    /** Which delegations a cascade starts from. */
    sealed interface Scope {
        /** One delegation. */
        record One(DelegationId id) implements Scope {}

        /** Every delegation whose source is the agent. */
        record FromAgent(AgentId agent) implements Scope {}
    }
}
