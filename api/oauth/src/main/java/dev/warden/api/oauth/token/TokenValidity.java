package dev.warden.api.oauth.token;

import dev.warden.api.oauth.agents.AgentDirectory;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.engine.ChainWalk;
import dev.warden.authorizer.engine.EffectiveGrant;
import dev.warden.authorizer.engine.GrantOrigin;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * Whether a signed, unexpired access token may still be used: the one place every reader of tokens asks (the
 * credential chain, introspection, token exchange). A token with a grant row (a user's grant, a token exchange)
 * is checked against it. A stateless token (client credentials and token exchange, D185) is checked against the
 * state it was issued in ({@link AccessTokens.Chain}), read through the caches {@code POST /authorize} uses, which
 * every instance drops when any agent or delegation changes (PostgreSQL {@code NOTIFY}, then the event feed): each
 * agent of its chain still active and at the same version (a rotation, suspension or client binding change moves
 * it), every delegation it came through still granting, the user's grant it started from still usable (token
 * exchange), and the token itself not revoked. What PostgreSQL says of a grant or a revoked token is remembered
 * until a revocation ({@link TokenStates}).
 */
public final class TokenValidity {
    private final TokenStates states;
    private final AgentDirectory directory;

    public TokenValidity(GrantRepository grants, AgentDirectory directory) {
        this.states = new TokenStates(grants);
        this.directory = directory;
    }

    /** The version of {@code agent} a stateless token records and is compared with. */
    static Instant version(Agent agent) {
        return agent.updatedAt().truncatedTo(ChronoUnit.MICROS);
    }

    /** True when the token of {@code claims} may be used at {@code now}. */
    public boolean isActive(AccessTokens.Claims claims, Instant now) {
        Optional<AccessTokens.Chain> chain = claims.chain();
        if (chain.isEmpty()) {
            return states.isActive(claims.grantId(), claims.jti(), now);
        }
        Set<String> granting = new HashSet<>();
        for (AccessTokens.AgentVersion link : chain.get().agents()) {
            ChainWalk.Result resolved = directory.policy(AgentId.of(link.id()));
            Optional<Agent> agent = resolved.agent().filter(a -> a.isActive(now));
            if (agent.isEmpty() || !version(agent.get()).equals(link.version())) {
                return false;
            }
            for (EffectiveGrant grant : resolved.policy().grants()) {
                if (grant.origin() instanceof GrantOrigin.Delegated d) {
                    granting.add(d.delegation().value());
                }
            }
        }
        // Each delegation was to one of the chain's agents: while it grants, it is among that agent's origins.
        if (!granting.containsAll(chain.get().delegations())) {
            return false;
        }
        return chain.get().rootGrant().isPresent()
                ? states.isActive(chain.get().rootGrant().get(), claims.jti(), now)
                : !states.isRevoked(claims.jti());
    }
}
