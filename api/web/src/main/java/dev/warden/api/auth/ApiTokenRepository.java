package dev.warden.api.auth;

import dev.warden.authorizer.domain.UserId;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Storage of user API tokens (by hash). */
public interface ApiTokenRepository {
    /** Stores a new token. */
    void insert(ApiToken token, byte[] tokenHash);

    /** The live (not revoked) token with this hash. */
    Optional<ApiToken> findActiveByHash(byte[] tokenHash);

    /** Revokes the token; true when it was live. */
    boolean revoke(String id, Instant at);

    /** The token with this id, revoked or not. */
    Optional<ApiToken> find(String id);

    /** The user's tokens that are not revoked (expired ones included), oldest first, at most 1000. */
    List<ApiToken> listUnrevoked(UserId userId);

    /** Every user's tokens that are not revoked, oldest first, at most 1000. */
    List<ApiToken> listUnrevoked();
}
