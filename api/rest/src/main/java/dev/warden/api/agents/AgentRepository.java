package dev.warden.api.agents;

import dev.warden.api.auth.AgentTokens;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.AgentStatus;
import dev.warden.authorizer.domain.AgentType;
import dev.warden.authorizer.domain.TenantId;
import dev.warden.authorizer.domain.UserId;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.runtime.db.Keyset;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Storage of agents. Every write takes the events it causes and stores them atomically with the change
 * (transactional outbox), so state and events never disagree.
 */
public interface AgentRepository extends AgentTokens {

    /** Stores a new agent with its token hash and its events. */
    void create(Agent agent, byte[] tokenHash, List<StreamEvent.Draft> events);

    /** The agent with this id, whatever its status. */
    Optional<Agent> find(AgentId id);

    /** The agent whose current token has this hash. */
    Optional<Agent> findByTokenHash(byte[] tokenHash);

    /** How many agents exist and how many are active at {@code now}, optionally of one owner only. */
    Counts count(Optional<UserId> owner, Instant now);

    /** Agent totals. */
    record Counts(long total, long active) {}

    /** Agents matching every given filter, oldest first, at most {@value #LIST_CAP}. */
    default List<Agent> list(Filter filter) {
        return list(filter, Optional.empty(), LIST_CAP);
    }

    /** The most agents an unpaged list answers. */
    int LIST_CAP = 10_000;

    /**
     * At most {@code limit} agents matching every given filter, oldest first (by creation, then id), strictly after
     * {@code after} when given.
     */
    List<Agent> list(Filter filter, Optional<Keyset> after, int limit);

    /**
     * The unrevoked agents whose metadata {@code authzen.subject} is {@code subject} ({@code type:id}), of
     * {@code owner} (all when empty), oldest first, at most {@code limit}.
     */
    List<Agent> findBySubject(Optional<UserId> owner, String subject, int limit);

    /**
     * One page of the agents of {@code filter.tenantId()} (required) matching the other filters, newest first,
     * after {@code after} when given ({@code ownerId} is ignored).
     */
    List<Agent> page(Filter filter, Optional<Keyset> after, int limit);

    /**
     * Applies {@code change} to the agent under a row lock and stores the result, its new token hash (if
     * any) and its events in one transaction. Whatever {@code change} throws rolls everything back.
     *
     * @return the stored agent, or empty when there is no agent with this id
     */
    Optional<Agent> update(AgentId id, Change change);

    /** What a change decides, given the current agent. */
    @FunctionalInterface
    interface Change {
        Outcome apply(Agent current);
    }

    /**
     * The result of a change; {@code events} empty and {@code agent} unchanged means "nothing to write".
     * {@code audit} holds the audit entry of an administrative action, written with the change.
     */
    record Outcome(Agent agent, Optional<byte[]> newTokenHash, List<StreamEvent.Draft> events, List<AuditEntry> audit) {
        public Outcome {
            events = List.copyOf(events);
            audit = List.copyOf(audit);
        }

        /** A change with its events and no audit entry. */
        public Outcome(Agent agent, Optional<byte[]> newTokenHash, List<StreamEvent.Draft> events) {
            this(agent, newTokenHash, events, List.of());
        }

        /** Leave the agent as it is. */
        public static Outcome unchanged(Agent agent) {
            return new Outcome(agent, Optional.empty(), List.of());
        }
    }

    /**
     * List filters; empty means "any". {@code status} is matched against the derived status at
     * {@code now}, so {@code expired} finds agents past their expiry.
     */
    record Filter(
            Optional<UserId> ownerId,
            Optional<TenantId> tenantId,
            Optional<AgentType> type,
            Optional<AgentStatus> status,
            Instant now) {}
}
