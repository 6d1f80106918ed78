package dev.warden.api.oauth.token;

import dev.warden.api.errors.OAuthException;

/**
 * What a grant's transaction decided: tokens, or a refusal. A refusal is returned, not thrown, so that what the
 * transaction wrote to make it safe (a burnt code, a revoked family) is committed before the client hears no. The
 * tokens are a {@link TokenIssuer.Pending} pair, signed by {@link TokenIssuer#sign} after the commit.
 */
sealed interface GrantOutcome {
    record Issued(TokenIssuer.Pending pair) implements GrantOutcome {}

    /** A refusal; {@code revoked} when the transaction also revoked a grant (a replayed code or refresh token). */
    record Refused(OAuthException error, boolean revoked) implements GrantOutcome {
        Refused(OAuthException error) {
            this(error, false);
        }
    }

    /** The pair to sign, or the refusal thrown. */
    default TokenIssuer.Pending pairOrThrow() {
        return switch (this) {
            case Issued issued -> issued.pair();
            case Refused refused -> throw refused.error();
        };
    }
}
