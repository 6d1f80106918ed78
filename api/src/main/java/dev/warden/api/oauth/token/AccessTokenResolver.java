package dev.warden.api.oauth.token;

import dev.warden.api.access.Principal;
import dev.warden.api.access.Scopes;
import dev.warden.api.auth.CredentialResolver;
import dev.warden.authorizer.domain.UserId;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;

/**
 * OAuth access tokens in the credential chain: a JWT of this issuer, correctly signed, unexpired, whose grant is
 * still usable (not revoked, the user's session not signed out) and that was not revoked itself, is the user
 * {@code sub} acting with the token's scopes ({@link Scopes#effective}) for its audience only (the
 * authentication filter refuses it on another resource).
 */
public final class AccessTokenResolver implements CredentialResolver {
    private final AccessTokens tokens;
    private final GrantRepository grants;
    private final InstantSource clock;

    public AccessTokenResolver(AccessTokens tokens, GrantRepository grants, InstantSource clock) {
        this.tokens = tokens;
        this.grants = grants;
        this.clock = clock;
    }

    @Override
    public boolean claims(String token) {
        return AccessTokens.looksLikeJwt(token);
    }

    @Override
    public Optional<Principal> resolve(String token, byte[] tokenHash) {
        return tokens.verify(token)
                .filter(c -> grants.isActive(c.grantId(), c.jti(), clock.instant()))
                .map(c -> new Principal.User(UserId.of(c.subject()), c.jti(), Principal.Credential.OAUTH,
                        Scopes.effective(c.scopes()), List.of(c.audience())));
    }
}
