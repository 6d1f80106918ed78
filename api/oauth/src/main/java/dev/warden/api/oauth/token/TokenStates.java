package dev.warden.api.oauth.token;

import dev.warden.api.auth.CredentialRevocations;
import dev.warden.runtime.cache.BoundedCache;
import java.time.Instant;

/**
 * Whether an access token of a person's grant is still good, and whether an access token was revoked (RFC 7009):
 * read from PostgreSQL once per token, then answered from memory (D187). An ended answer is kept (nothing revoked
 * or expired comes back); a good one is trusted while no revocation has happened since it was read
 * ({@link CredentialRevocations}: this instance's own once committed, any instance's through the database's
 * notification) and until the grant's hard end. So a resource server introspecting the same token, or a client
 * calling the API with it, costs a query once, and a revocation still ends the token at once.
 */
final class TokenStates {
    /** Past this many remembered tokens the memory starts again (each entry is a few hundred bytes). */
    static final int MAX_ENTRIES = 100_000;

    private final GrantRepository grants;
    private final CredentialRevocations revocations;
    private final BoundedCache<String, Entry> entries = new BoundedCache<>(MAX_ENTRIES);

    /** An answer, good {@code until}, read at {@code generation}. */
    private record Entry(boolean good, Instant until, long generation) {}

    TokenStates(GrantRepository grants) {
        this.grants = grants;
        this.revocations = grants.revocations();
    }

    /** True when access token {@code jti} of the grant {@code grantId} may be used at {@code now}. */
    boolean isActive(String grantId, String jti, Instant now) {
        if (AgentGrantRepository.isAgentGrant(grantId)) {
            // A token issued to agents before D185, checked against its row until it expires: not remembered.
            return grants.agentGrants().isActive(grantId, jti, now);
        }
        String key = "g " + grantId + " " + jti;
        Entry entry = trusted(key);
        if (entry == null) {
            long generation = revocations.generation();
            entry = grants.standing(grantId, jti)
                    .map(s -> new Entry(s.good(), s.until(), generation))
                    .orElseGet(() -> new Entry(false, Instant.MIN, generation));
            remember(key, entry);
        }
        return entry.good() && now.isBefore(entry.until());
    }

    /** True when the access token {@code jti} was revoked (RFC 7009). */
    boolean isRevoked(String jti) {
        String key = "j " + jti;
        Entry entry = trusted(key);
        if (entry == null) {
            long generation = revocations.generation();
            entry = new Entry(!grants.isAccessTokenRevoked(jti), Instant.MAX, generation);
            remember(key, entry);
        }
        return !entry.good();
    }

    private Entry trusted(String key) {
        Entry entry = entries.get(key);
        return entry != null && (!entry.good() || entry.generation() == revocations.generation()) ? entry : null;
    }

    private void remember(String key, Entry entry) {
        entries.put(key, entry);
    }
}
