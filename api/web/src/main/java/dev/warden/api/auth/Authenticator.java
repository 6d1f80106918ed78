package dev.warden.api.auth;

import dev.warden.api.access.Principal;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Maps a bearer token to the {@link Principal} it stands for, or to nothing, through a chain of
 * {@link CredentialResolver}s: the first that claims the token and knows it answers. The token is hashed once
 * (SHA-256); resolvers look tokens up by that hash, so the lookup reveals nothing through timing.
 */
public final class Authenticator {
    /** Longer bearer values are refused without a lookup (an ES256 access token is well under 1 KiB). */
    private static final int MAX_TOKEN_LENGTH = 4096;

    private final List<CredentialResolver> chain;

    public Authenticator(List<CredentialResolver> chain) {
        this.chain = List.copyOf(chain);
    }

    /**
     * Warden's chain: the bootstrap administrator token (unless turned off), agent tokens, users' API tokens (active
     * and unexpired), and sessions.
     */
    public static Authenticator standard(
            Optional<byte[]> adminTokenHash,
            AgentTokenResolver agents,
            ApiTokenRepository apiTokens,
            SessionResolver sessions,
            InstantSource clock) {
        List<CredentialResolver> chain = new ArrayList<>();
        adminTokenHash.ifPresent(hash -> chain.add(new AdminTokenResolver(hash)));
        chain.addAll(List.of(
                agents,
                CredentialResolver.ofKind(
                        TokenKind.API,
                        hash -> apiTokens
                                .findActiveByHash(hash)
                                .filter(t -> t.activeAt(clock.instant()))
                                .map(t -> new Principal.User(
                                        t.userId(), t.id(), Principal.Credential.API_TOKEN, t.scopes()))),
                sessionResolver(sessions)));
        return new Authenticator(chain);
    }

    /** A chain that knows user sessions only: what a browser page has, its session cookie. */
    public static Authenticator sessions(SessionResolver sessions) {
        return new Authenticator(List.of(sessionResolver(sessions)));
    }

    private static CredentialResolver sessionResolver(SessionResolver sessions) {
        return CredentialResolver.ofKind(TokenKind.SESSION, sessions::resolve);
    }

    /**
     * The principal of {@code token}, empty when no resolver knows it: unknown, revoked or expired (API tokens
     * and sessions), or its agent inactive.
     */
    public Optional<Principal> authenticate(String token) {
        if (token.isEmpty() || token.length() > MAX_TOKEN_LENGTH) {
            return Optional.empty();
        }
        byte[] hash = Tokens.hash(token);
        for (CredentialResolver resolver : chain) {
            if (resolver.claims(token)) {
                Optional<Principal> principal = resolver.resolve(token, hash);
                if (principal.isPresent()) {
                    return principal;
                }
            }
        }
        return Optional.empty();
    }

    /** A chain with {@code more} resolvers after this one's (OAuth access tokens join once their keys exist). */
    public Authenticator with(CredentialResolver more) {
        List<CredentialResolver> all = new ArrayList<>(chain);
        all.add(more);
        return new Authenticator(all);
    }
}
