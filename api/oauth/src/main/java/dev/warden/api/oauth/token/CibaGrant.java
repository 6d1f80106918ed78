package dev.warden.api.oauth.token;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.OAuthException;
import dev.warden.api.oauth.TokenGrant;
import dev.warden.api.oauth.ciba.BackchannelApprovals;
import dev.warden.api.oauth.ciba.BackchannelRequests;
import dev.warden.api.oauth.clients.GrantTypes;
import dev.warden.api.oauth.clients.OAuthClient;
import dev.warden.runtime.db.Transactions;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;

/**
 * {@code grant_type=urn:openid:params:grant-type:ciba} (OpenID CIBA Core 1.0 sections 10-11, poll mode): the client
 * polls with its {@code auth_req_id}. Until the person decides: {@code authorization_pending}; polling sooner than the
 * interval: {@code slow_down}, and the interval grows by 5 seconds; denied: {@code access_denied}; expired, or the
 * agent revoked: {@code expired_token}. Once approved, the first poll takes the approval and starts a grant for the
 * person (as the device grant does): an access and a refresh token with the scope asked for; no ID token (Warden is
 * not an OpenID Provider). Only the client that asked may poll.
 */
final class CibaGrant implements TokenGrant {
    private final Transactions transactions;
    private final BackchannelRequests requests;
    private final BackchannelApprovals approvals;
    private final TokenIssuer issuer;
    private final InstantSource clock;

    CibaGrant(
            Transactions transactions,
            BackchannelRequests requests,
            BackchannelApprovals approvals,
            TokenIssuer issuer,
            InstantSource clock) {
        this.transactions = transactions;
        this.requests = requests;
        this.approvals = approvals;
        this.issuer = issuer;
        this.clock = clock;
    }

    @Override
    public String type() {
        return GrantTypes.CIBA;
    }

    /** Only agents bound as OAuth clients use it; their clients are derived. */
    @Override
    public boolean registrable() {
        return false;
    }

    @Override
    public ObjectNode respond(OAuthClient client, Map<String, String> form, String ip) {
        String authRequestId = AuthorizationCodeGrant.required(form, "auth_req_id");
        byte[] hash = BackchannelRequests.hashOf(authRequestId);
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        GrantOutcome outcome = transactions.inTransaction(conn -> {
            Optional<BackchannelRequests.BackchannelRequest> found = requests.lock(conn, hash);
            if (found.isEmpty() || !found.get().clientId().equals(client.clientId())) {
                return refused(OAuthException.invalidGrant("the auth_req_id is not valid"));
            }
            BackchannelRequests.BackchannelRequest request = found.get();
            if (request.status().equals("redeemed")) {
                return refused(OAuthException.invalidGrant("the auth_req_id was already used"));
            }
            if (!request.expiresAt().isAfter(now)) {
                return refused(expired());
            }
            PollPace pace = PollPace.of(request.lastPolledAt(), request.interval(), now);
            requests.polled(conn, hash, now, pace.interval());
            if (pace.slowDown().isPresent()) {
                return refused(pace.slowDown().get());
            }
            return switch (approvals.take(request.approvalId(), client.clientId(), request.key(), now)) {
                case PENDING ->
                    refused(new OAuthException(
                            ErrorCode.OAUTH_AUTHORIZATION_PENDING, "the person has not answered yet"));
                case DENIED ->
                    refused(new OAuthException(ErrorCode.OAUTH_DEVICE_ACCESS_DENIED, "the person denied the request"));
                case ENDED -> refused(expired());
                case GRANTED -> {
                    TokenIssuer.Started started = issuer.start(
                            conn,
                            client,
                            request.userId(),
                            Optional.empty(),
                            request.scope(),
                            request.resource(),
                            "ciba",
                            ip,
                            now);
                    requests.redeem(conn, hash, started.grant().id());
                    yield new GrantOutcome.Issued(started.pair());
                }
            };
        });
        return TokenResponses.pair(issuer.signStarted(outcome.pairOrThrow()));
    }

    private static OAuthException expired() {
        return new OAuthException(ErrorCode.OAUTH_EXPIRED_TOKEN, "the request expired or ended; ask again");
    }

    private static GrantOutcome refused(OAuthException e) {
        return new GrantOutcome.Refused(e);
    }
}
