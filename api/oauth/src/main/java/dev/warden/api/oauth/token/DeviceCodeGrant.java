package dev.warden.api.oauth.token;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.auth.Tokens;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.OAuthException;
import dev.warden.api.oauth.TokenGrant;
import dev.warden.api.oauth.clients.GrantTypes;
import dev.warden.api.oauth.clients.OAuthClient;
import dev.warden.api.oauth.device.DeviceCodes;
import dev.warden.runtime.db.Transactions;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;

/**
 * {@code grant_type=urn:ietf:params:oauth:grant-type:device_code} (RFC 8628 section 3.4-3.5): the device polls
 * with its device code. Until its user decides: {@code authorization_pending}; polling sooner than the interval:
 * {@code slow_down}, and the interval grows by 5 seconds; the user said no: {@code access_denied}; too late:
 * {@code expired_token}. Once approved, the first poll starts a grant for the user (like an authorization code)
 * and gets its token pair; the code is then spent ({@code invalid_grant}). Only the client that asked may poll.
 */
final class DeviceCodeGrant implements TokenGrant {
    private final Transactions transactions;
    private final DeviceCodes codes;
    private final TokenIssuer issuer;
    private final InstantSource clock;

    DeviceCodeGrant(Transactions transactions, DeviceCodes codes, TokenIssuer issuer, InstantSource clock) {
        this.transactions = transactions;
        this.codes = codes;
        this.issuer = issuer;
        this.clock = clock;
    }

    @Override
    public String type() {
        return GrantTypes.DEVICE_CODE;
    }

    @Override
    public ObjectNode respond(OAuthClient client, Map<String, String> form, String ip) {
        return TokenResponses.pair(poll(client, form, ip));
    }

    TokenIssuer.TokenPair poll(OAuthClient client, Map<String, String> form, String ip) {
        String deviceCode = AuthorizationCodeGrant.required(form, "device_code");
        byte[] hash = Tokens.hash(deviceCode);
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        GrantOutcome outcome = transactions.inTransaction(conn -> {
            Optional<DeviceCodes.DeviceRequest> found = codes.lock(conn, hash);
            if (found.isEmpty() || !found.get().clientId().equals(client.clientId())) {
                return refused(OAuthException.invalidGrant("the device code is not valid"));
            }
            DeviceCodes.DeviceRequest request = found.get();
            if (request.status().equals("redeemed")) {
                return refused(OAuthException.invalidGrant("the device code was already used"));
            }
            if (!request.expiresAt().isAfter(now)) {
                return refused(
                        new OAuthException(ErrorCode.OAUTH_EXPIRED_TOKEN, "the device code expired; start again"));
            }
            PollPace pace = PollPace.of(request.lastPolledAt(), request.interval(), now);
            codes.polled(conn, hash, now, pace.interval());
            if (pace.slowDown().isPresent()) {
                return refused(pace.slowDown().get());
            }
            switch (request.status()) {
                case "pending" -> {
                    return refused(
                            new OAuthException(ErrorCode.OAUTH_AUTHORIZATION_PENDING, "the user has not answered yet"));
                }
                case "denied" -> {
                    return refused(
                            new OAuthException(ErrorCode.OAUTH_DEVICE_ACCESS_DENIED, "the user denied the request"));
                }
                default -> {
                    TokenIssuer.Started started = issuer.start(
                            conn,
                            client,
                            request.userId().orElseThrow(),
                            request.sessionId(),
                            request.scope(),
                            request.resource(),
                            "device_code",
                            ip,
                            now);
                    codes.redeem(conn, hash, started.grant().id());
                    return new GrantOutcome.Issued(started.pair());
                }
            }
        });
        return issuer.signStarted(outcome.pairOrThrow());
    }

    private static GrantOutcome refused(OAuthException e) {
        return new GrantOutcome.Refused(e);
    }
}
