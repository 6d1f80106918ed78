package dev.warden.api.auth;

import dev.warden.api.access.Principal;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The deployment's bootstrap administrator token, compared by hash in constant time. It may have any form
 * (an operator can set {@code WARDEN_BOOTSTRAP_TOKEN} to anything), so this resolver looks at every token and
 * comes first in the chain.
 */
public final class AdminTokenResolver implements CredentialResolver {
    private final byte[] adminTokenHash;

    public AdminTokenResolver(byte[] adminTokenHash) {
        this.adminTokenHash = adminTokenHash.clone();
    }

    /**
     * Administrator sessions ({@code wdn_ads_}) of administrators who are people: {@code live} says whether the
     * session with a hash is live (and its user still an administrator); a live one is the administrator.
     */
    public static CredentialResolver sessions(Predicate<byte[]> live) {
        return CredentialResolver.ofKind(
                TokenKind.ADMIN_SESSION,
                hash -> live.test(hash) ? Optional.of(new Principal.Admin()) : Optional.empty());
    }

    @Override
    public Optional<Principal> resolve(String token, byte[] tokenHash) {
        return Tokens.sameHash(tokenHash, adminTokenHash) ? Optional.of(new Principal.Admin()) : Optional.empty();
    }
}
