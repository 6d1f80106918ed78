package dev.warden.api.oauth.token;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.auth.TokenKind;
import dev.warden.api.auth.Tokens;
import dev.warden.api.errors.OAuthException;
import dev.warden.api.oauth.TokenGrant;
import dev.warden.api.oauth.clients.GrantTypes;
import dev.warden.api.oauth.clients.OAuthClient;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code grant_type=refresh_token} (RFC 6749 section 6, OAuth 2.1 section 4.3): the token must be this client's,
 * unexpired, unused, and its grant usable. It is rotated: the answer carries a new refresh token and the old one
 * is spent. A spent token presented again means it was stolen or replayed, so the whole grant (every token of
 * the family, the new one included) is revoked. {@code scope} may only narrow (the new refresh token keeps the
 * grant's scope); {@code resource}, if sent, must be the grant's ({@code invalid_target}).
 */
final class RefreshTokenGrant implements TokenGrant {
    private final GrantRepository grants;
    private final RefreshRotations rotations;
    private final TokenIssuer issuer;
    private final InstantSource clock;

    RefreshTokenGrant(GrantRepository grants, TokenIssuer issuer, InstantSource clock) {
        this.grants = grants;
        this.rotations = new RefreshRotations(grants);
        this.issuer = issuer;
        this.clock = clock;
    }

    @Override
    public String type() {
        return GrantTypes.REFRESH_TOKEN;
    }

    @Override
    public ObjectNode respond(OAuthClient client, Map<String, String> form, String ip) {
        return TokenResponses.pair(refresh(client, form));
    }

    TokenIssuer.TokenPair refresh(OAuthClient client, Map<String, String> form) {
        String token = AuthorizationCodeGrant.required(form, "refresh_token");
        Optional<String> resource = Optional.ofNullable(form.get("resource"));
        Optional<List<String>> asked = Optional.ofNullable(form.get("scope"))
                .map(scope -> Arrays.stream(scope.split(" "))
                        .filter(s -> !s.isEmpty())
                        .distinct()
                        .toList());
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        String next = Tokens.mint(TokenKind.REFRESH);
        // One statement spends the token and stores its successor, or writes nothing (D190), written together
        // with the rotations of concurrent requests (D196).
        Optional<GrantRepository.Rotated> rotated = rotations.rotate(new GrantRepository.Rotation(
                Tokens.hash(token),
                client.clientId(),
                resource,
                asked,
                Tokens.hash(next),
                issuer.refreshEnd(now),
                now));
        GrantOutcome outcome = outcome(rotated, client, resource, asked, next, now);
        grants.committed(outcome);
        return issuer.sign(outcome.pairOrThrow());
    }

    /** The pair when the token rotated; else why not, in the order a client is told, revoking on a reuse. */
    private GrantOutcome outcome(
            Optional<GrantRepository.Rotated> rotated,
            OAuthClient client,
            Optional<String> resource,
            Optional<List<String>> asked,
            String next,
            Instant now) {
        if (rotated.isEmpty()) {
            return new GrantOutcome.Refused(OAuthException.invalidGrant("the refresh token is not valid"));
        }
        GrantRepository.RefreshToken rt = rotated.get().token();
        GrantRepository.Grant grant = rt.grant();
        List<String> granted = Arrays.asList(grant.scope().split(" "));
        if (rotated.get().rotated()) {
            return new GrantOutcome.Issued(issuer.pending(grant, asked.orElse(granted), next));
        }
        if (!grant.clientId().equals(client.clientId())) {
            return new GrantOutcome.Refused(
                    OAuthException.invalidGrant("the refresh token was issued to another client"));
        }
        if (rt.usedAt().isPresent()) {
            return reused(grant, now);
        }
        if (!rt.grantUsable() || !rt.expiresAt().isAfter(now)) {
            return new GrantOutcome.Refused(
                    OAuthException.invalidGrant("the refresh token has expired or was revoked"));
        }
        if (resource.isPresent() && !resource.get().equals(grant.resource())) {
            return new GrantOutcome.Refused(OAuthException.invalidTarget("resource differs from the grant's"));
        }
        if (asked.isPresent() && (asked.get().isEmpty() || !granted.containsAll(asked.get()))) {
            return new GrantOutcome.Refused(OAuthException.invalidScope("scope may only narrow the grant's scope"));
        }
        // Every check passed as read, yet the statement spent nothing: a concurrent use spent it first.
        return reused(grant, now);
    }

    /** A spent token presented again: stolen or replayed, so its whole family is revoked. */
    private GrantOutcome reused(GrantRepository.Grant grant, Instant now) {
        grants.revokeGrant(grant.id(), "refresh token reused", now);
        return new GrantOutcome.Refused(
                OAuthException.invalidGrant(
                        "the refresh token was already used; every token of this grant is now revoked"),
                true);
    }
}
