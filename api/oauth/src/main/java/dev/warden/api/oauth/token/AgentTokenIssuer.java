package dev.warden.api.oauth.token;

import dev.warden.api.events.EventOutbox;
import dev.warden.api.oauth.clients.OAuthClient;
import dev.warden.runtime.db.Transactions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Issues a token to agents: stores its grant (the chain it depends on) and its {@code auth.signin} event in one
 * transaction, then signs it. The token ends at the earliest of the agent-token lifetime and the ends it may
 * not outlive ({@link #expiry}), and so does its grant.
 */
final class AgentTokenIssuer {
    private final Transactions transactions;
    private final AccessTokens accessTokens;
    private final AgentGrantRepository grants;
    private final Duration ttl;

    AgentTokenIssuer(Transactions transactions, AccessTokens accessTokens, AgentGrantRepository grants, Duration ttl) {
        this.transactions = transactions;
        this.accessTokens = accessTokens;
        this.grants = grants;
        this.ttl = ttl;
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
        return accessTokens.issue(new AccessTokens.Spec(
                grant.subject(),
                kind,
                client.clientId(),
                List.of(grant.scope().split(" ")),
                grant.resource(),
                grant.id(),
                actors,
                Optional.of(grant.expiresAt()),
                ttl));
    }
}
