package dev.warden.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Signing a person in from a device without a browser: the OAuth device authorization grant (RFC 8628) against
 * Warden's own authorization server. {@link #start} gets the codes to show; {@link #await} polls the token
 * endpoint at the interval the server asks (longer after a {@code slow_down}) until the person approves, denies,
 * or the code expires.
 */
public final class DeviceLogin {
    /** What to show the person: where to go and the code to type. */
    public record Pending(
            String deviceCode,
            String userCode,
            String verificationUri,
            String verificationUriComplete,
            Instant expiresAt,
            Duration interval) {}

    /** The sign-in: an access token for now and the refresh token that keeps it going. */
    public record SignedIn(String accessToken, Instant expiresAt, String refreshToken, String scope) {
        /** What to keep between runs ({@link WardenClient.Builder#session}). */
        public RefreshTokenCredentials.Session session() {
            return new RefreshTokenCredentials.Session(accessToken, expiresAt, refreshToken);
        }
    }

    /** Something to do between two polls (a sleep, normally); replaceable in tests. */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(Duration duration) throws InterruptedException;
    }

    private final OAuthTokens tokens;
    private final String clientId;
    private final Sleeper sleeper;

    DeviceLogin(OAuthTokens tokens, String clientId, Sleeper sleeper) {
        this.tokens = tokens;
        this.clientId = clientId;
        this.sleeper = sleeper;
    }

    /** Asks for a device code for {@code scope} (space-separated) on the resource {@code resource}. */
    public Pending start(String scope, String resource) {
        Map<String, String> form = new LinkedHashMap<>();
        form.put("client_id", clientId);
        form.put("scope", scope);
        form.put("resource", resource);
        JsonNode answer = tokens.post("device_authorization_endpoint", form);
        return new Pending(
                answer.path("device_code").asText(),
                answer.path("user_code").asText(),
                answer.path("verification_uri").asText(),
                answer.path("verification_uri_complete").asText(),
                tokens.clock().instant().plusSeconds(answer.path("expires_in").asLong(600)),
                Duration.ofSeconds(Math.max(1, answer.path("interval").asLong(5))));
    }

    /**
     * Polls until the person answers. Throws {@link WardenException} with code {@code access_denied} (they
     * denied), {@code expired_token} (the code ran out), or whatever else the server refused.
     */
    public SignedIn await(Pending pending) throws InterruptedException {
        Duration interval = pending.interval();
        Map<String, String> form = new LinkedHashMap<>();
        form.put("grant_type", "urn:ietf:params:oauth:grant-type:device_code");
        form.put("client_id", clientId);
        form.put("device_code", pending.deviceCode());
        while (true) {
            sleeper.sleep(interval);
            try {
                OAuthTokens.Issued issued = tokens.issued(tokens.post("token_endpoint", form));
                return new SignedIn(
                        issued.accessToken(),
                        issued.expiresAt(),
                        issued.refreshToken()
                                .orElseThrow(() -> new WardenException(
                                        0,
                                        "invalid_response",
                                        "the token endpoint issued no refresh token",
                                        java.util.List.of(),
                                        "",
                                        java.util.Optional.empty(),
                                        null)),
                        issued.scope());
            } catch (WardenException e) {
                switch (e.code()) {
                    case "authorization_pending" -> {}
                    case "slow_down" -> interval = interval.plusSeconds(5);
                    default -> throw e;
                }
            }
        }
    }
}
