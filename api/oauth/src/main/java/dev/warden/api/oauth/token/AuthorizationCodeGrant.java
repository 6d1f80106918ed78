package dev.warden.api.oauth.token;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.auth.Tokens;
import dev.warden.api.errors.OAuthException;
import dev.warden.api.oauth.TokenGrant;
import dev.warden.api.oauth.authorize.CodeRepository;
import dev.warden.api.oauth.authorize.Pkce;
import dev.warden.api.oauth.clients.GrantTypes;
import dev.warden.api.oauth.clients.OAuthClient;
import dev.warden.runtime.db.Transactions;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;

/**
 * {@code grant_type=authorization_code} (RFC 6749 section 4.1.3 with PKCE, RFC 7636): the code must be this
 * client's, unexpired and never redeemed; {@code redirect_uri} must be the one the code was issued for;
 * {@code code_verifier} must hash to its challenge; a {@code resource}, if sent, must be the code's. Any
 * failure burns the code. A code presented a second time revokes the grant it started (RFC 6749 section
 * 4.1.2: the tokens issued from it). Success starts a grant and emits {@code auth.signin}.
 */
final class AuthorizationCodeGrant implements TokenGrant {
    private final Transactions transactions;
    private final CodeRepository codes;
    private final GrantRepository grants;
    private final TokenIssuer issuer;
    private final InstantSource clock;

    AuthorizationCodeGrant(
            Transactions transactions,
            CodeRepository codes,
            GrantRepository grants,
            TokenIssuer issuer,
            InstantSource clock) {
        this.transactions = transactions;
        this.codes = codes;
        this.grants = grants;
        this.issuer = issuer;
        this.clock = clock;
    }

    @Override
    public String type() {
        return GrantTypes.AUTHORIZATION_CODE;
    }

    @Override
    public ObjectNode respond(OAuthClient client, Map<String, String> form, String ip) {
        return TokenResponses.pair(exchange(client, form, ip));
    }

    TokenIssuer.TokenPair exchange(OAuthClient client, Map<String, String> form, String ip) {
        String code = required(form, "code");
        String redirectUri = required(form, "redirect_uri");
        String verifier = required(form, "code_verifier");
        Optional<String> resource = Optional.ofNullable(form.get("resource"));
        byte[] hash = Tokens.hash(code);
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        GrantOutcome outcome = transactions.inTransaction(conn -> {
            Optional<CodeRepository.Code> found = codes.lock(conn, hash);
            if (found.isEmpty()) {
                return refused(OAuthException.invalidGrant("the authorization code is not valid"));
            }
            CodeRepository.Code c = found.get();
            if (c.redeemedAt().isPresent()) {
                if (c.grantId().isPresent()) {
                    grants.revokeGrant(conn, c.grantId().get(), "authorization code replayed", now);
                }
                return new GrantOutcome.Refused(
                        OAuthException.invalidGrant("the authorization code was already used"),
                        c.grantId().isPresent());
            }
            Optional<OAuthException> problem = problem(c, client, redirectUri, verifier, resource, now);
            if (problem.isPresent()) {
                codes.redeem(conn, hash, Optional.empty(), now);
                return refused(problem.get());
            }
            TokenIssuer.Started started = issuer.start(
                    conn,
                    client,
                    c.userId(),
                    c.sessionId(),
                    c.scope(),
                    c.resource(),
                    GrantTypes.AUTHORIZATION_CODE,
                    ip,
                    now);
            codes.redeem(conn, hash, Optional.of(started.grant().id()), now);
            return new GrantOutcome.Issued(started.pair());
        });
        grants.committed(outcome);
        return issuer.signStarted(outcome.pairOrThrow());
    }

    private static Optional<OAuthException> problem(
            CodeRepository.Code c,
            OAuthClient client,
            String redirectUri,
            String verifier,
            Optional<String> resource,
            Instant now) {
        if (!c.clientId().equals(client.clientId())) {
            return Optional.of(OAuthException.invalidGrant("the authorization code was issued to another client"));
        }
        if (!c.expiresAt().isAfter(now)) {
            return Optional.of(OAuthException.invalidGrant("the authorization code has expired"));
        }
        if (!c.redirectUri().equals(redirectUri)) {
            return Optional.of(OAuthException.invalidGrant("redirect_uri does not match the authorization request"));
        }
        if (!Pkce.verifierFormatOk(verifier) || !Pkce.matches(verifier, c.codeChallenge())) {
            return Optional.of(OAuthException.invalidGrant("code_verifier does not match the code_challenge (PKCE)"));
        }
        if (resource.isPresent() && !resource.get().equals(c.resource())) {
            return Optional.of(OAuthException.invalidTarget("resource differs from the authorization request"));
        }
        return Optional.empty();
    }

    private static GrantOutcome refused(OAuthException e) {
        return new GrantOutcome.Refused(e);
    }

    static String required(Map<String, String> form, String name) {
        String value = form.get(name);
        if (value == null) {
            throw OAuthException.invalidRequest(name + " is required");
        }
        return value;
    }
}
