package dev.warden.api.oauth.token;

import dev.warden.api.events.PublishedEvents;
import dev.warden.api.oauth.clients.OAuthClient;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Issues tokens to agents (client credentials, token exchange). Such a token stores nothing of its own (D185): the
 * state it depends on is signed into it ({@link AccessTokens.Chain}, checked on each use by {@link TokenValidity})
 * and its {@code auth.signin} event is published straight to {@code warden.events}, acknowledged by Kafka before the
 * token is answered (D198). The
 * token ends at the earliest of the agent-token lifetime and the ends it may not outlive ({@link #expiry}).
 */
final class AgentTokenIssuer {
    private final PublishedEvents events;
    private final AccessTokens accessTokens;
    private final Duration ttl;

    AgentTokenIssuer(PublishedEvents events, AccessTokens accessTokens, Duration ttl) {
        this.events = events;
        this.accessTokens = accessTokens;
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
     * Records {@code grant}'s {@code auth.signin} event (the grant itself is not stored) and signs its token, valid
     * while {@code chain} holds.
     *
     * @param actors the acting agents, current first (empty when the agent is the subject)
     */
    AccessTokens.Issued issue(
            AgentGrantRepository.AgentGrant grant,
            AccessTokens.SubjectKind kind,
            List<String> actors,
            AccessTokens.Chain chain,
            OAuthClient client,
            String ip) {
        events.publish(OAuthEvents.agentGranted(grant, client, ip));
        return accessTokens.issue(new AccessTokens.Spec(
                        grant.subject(),
                        kind,
                        grant.clientId(),
                        List.of(grant.scope().split(" ")),
                        grant.resource(),
                        grant.id(),
                        actors,
                        Optional.of(grant.expiresAt()),
                        ttl)
                .withChain(chain));
    }
}
