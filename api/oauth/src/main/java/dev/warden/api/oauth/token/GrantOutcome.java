package dev.warden.api.oauth.token;

import dev.warden.api.errors.OAuthException;

/**
 * What a grant's transaction decided: tokens, or a refusal. A refusal is returned, not thrown, so that what the
 * transaction wrote to make it safe (a burnt code, a revoked family) is committed before the client hears no.
 */
sealed interface GrantOutcome {
    record Issued(TokenIssuer.TokenPair pair) implements GrantOutcome {}

    record Refused(OAuthException error) implements GrantOutcome {}

    /** The tokens, or the refusal thrown. */
    default TokenIssuer.TokenPair tokensOrThrow() {
        return switch (this) {
            case Issued issued -> issued.pair();
            case Refused refused -> throw refused.error();
        };
    }
}
