package dev.warden.api.oauth.token;

import dev.warden.api.access.Principal;
import dev.warden.api.access.Scopes;
import dev.warden.api.auth.AgentTokenResolver;
import dev.warden.api.auth.CredentialResolver;
import dev.warden.api.oauth.agents.AgentDirectory;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.UserId;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;

/**
 * OAuth access tokens in the credential chain: a JWT of this issuer, correctly signed, unexpired, whose grant is
 * still usable (not revoked, the user's session not signed out; for a token issued to agents, every agent and
 * delegation of its chain still active) and that was not revoked itself. A user's token (also one an agent holds
 * for the user) is that user acting with the token's scopes ({@link Scopes#effective}); a client-credentials
 * token is its agent with the token's scopes. Either is valid for its audience only (the authentication filter
 * refuses it on another resource).
 */
public final class AccessTokenResolver implements CredentialResolver {
    private final AccessTokens tokens;
    private final TokenValidity validity;
    private final AgentDirectory agents;
    private final InstantSource clock;

    public AccessTokenResolver(
            AccessTokens tokens, TokenValidity validity, AgentDirectory agents, InstantSource clock) {
        this.tokens = tokens;
        this.validity = validity;
        this.agents = agents;
        this.clock = clock;
    }

    @Override
    public boolean claims(String token) {
        return AccessTokens.looksLikeJwt(token);
    }

    @Override
    public Optional<Principal> resolve(String token, byte[] tokenHash) {
        return tokens.verify(token)
                .filter(c -> validity.isActive(c, clock.instant()))
                .flatMap(this::principal);
    }

    private Optional<Principal> principal(AccessTokens.Claims c) {
        return switch (c.subjectKind()) {
            case USER ->
                Optional.of(new Principal.User(
                        UserId.of(c.subject()),
                        c.jti(),
                        Principal.Credential.OAUTH,
                        Scopes.effective(c.scopes()),
                        List.of(c.audience())));
            case AGENT ->
                agents.agent(AgentId.of(c.subject()))
                        .map(agent -> AgentTokenResolver.oauthAgent(
                                agent, Scopes.effective(c.scopes()), List.of(c.audience())));
        };
    }
}
