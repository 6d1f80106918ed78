package dev.warden.api.oauth.token;

import dev.warden.api.events.EventOutbox;
import dev.warden.api.events.GroupCommitEvents;
import dev.warden.api.oauth.clients.OAuthClient;
import dev.warden.runtime.db.Transactions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Issues a token to agents. A token exchange stores its grant (the chain it depends on) and its {@code auth.signin}
 * event in one transaction, then signs it. A client-credentials token stores nothing of its own (D185): the state
 * it depends on is signed into it ({@link AccessTokens.Chain}) and its event goes to the outbox by group commit,
 * committed before the token is answered. The token ends at the earliest of the agent-token lifetime and the ends
 * it may not outlive ({@link #expiry}), and so does its grant.
 */
final class AgentTokenIssuer {
    private final Transactions transactions;
    private final GroupCommitEvents events;
    private final AccessTokens accessTokens;
    private final AgentGrantRepository grants;
    private final Duration ttl;

    AgentTokenIssuer(
            Transactions transactions,
            GroupCommitEvents events,
            AccessTokens accessTokens,
            AgentGrantRepository grants,
            Duration ttl) {
        this.transactions = transactions;
        this.events = events;
        this.accessTokens = accessTokens;
        this.grants = grants;
        this.ttl = ttl;
    }

    /**
     * Records {@code grant}'s {@code auth.signin} event and signs a stateless token for it (no grant row), valid
     * while {@code chain} still holds ({@link TokenValidity}).
     */
    AccessTokens.Issued issueStateless(
            AgentGrantRepository.AgentGrant grant, AccessTokens.Chain chain, OAuthClient client, String ip) {
        events.append(OAuthEvents.agentGranted(grant, client, ip));
        return accessTokens.issue(
                spec(grant, AccessTokens.SubjectKind.AGENT, List.of()).withChain(chain));
    }

    /**
     * The end of a token issued at {@code now} that may outlive none of {@code limits} (the subject token's, the
     * agents' and the delegations' ends; an empty one sets no limit).
     */
    Instant expiry(Instant now, List<Optional<Instant>> limits) {
        Instant end = now.plus(ttl);
        for (Optional<Instant> limit : limits) {
            if (limit.isPresent() && limit.get().isBefore(end)) {
                end = limit.get();
            }
        }
        return end;
    }

    /**
     * Stores {@code grant} and signs its token.
     *
     * @param actors the acting agents, current first (empty when the agent is the subject)
     */
    AccessTokens.Issued issue(
            AgentGrantRepository.AgentGrant grant,
            AccessTokens.SubjectKind kind,
            List<String> actors,
            OAuthClient client,
            String ip) {
        transactions.inTransaction(conn -> {
            grants.insert(conn, grant);
            EventOutbox.append(conn, OAuthEvents.agentGranted(grant, client, ip));
            return null;
        });
        return accessTokens.issue(spec(grant, kind, actors));
    }

    private AccessTokens.Spec spec(
            AgentGrantRepository.AgentGrant grant, AccessTokens.SubjectKind kind, List<String> actors) {
        return new AccessTokens.Spec(
                grant.subject(),
                kind,
                grant.clientId(),
                List.of(grant.scope().split(" ")),
                grant.resource(),
                grant.id(),
                actors,
                Optional.of(grant.expiresAt()),
                ttl);
    }
}
