package dev.warden.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * Warden's OAuth token endpoint as a client sees it: its address read once from the authorization server
 * metadata ({@code /.well-known/oauth-authorization-server}), and the grants the client library uses.
 */
final class OAuthTokens {
    /**
     * What the token endpoint answered, and when to renew it: {@code renewAt} is {@code expiresAt} less half the
     * token's whole lifetime, at most {@link #EARLY} (a 5-second token is renewed after 2.5 s, an hour's 30 s before
     * it ends), so a token is never used so close to its end that it expires in flight.
     */
    record Issued(String accessToken, Instant expiresAt, Instant renewAt, Optional<String> refreshToken, String scope) {

        /** A token kept from an earlier run, whose lifetime is not known: renewed {@link #EARLY} before it ends. */
        static Issued kept(String accessToken, Instant expiresAt) {
            return new Issued(accessToken, expiresAt, expiresAt.minus(EARLY), Optional.empty(), "");
        }

        /** When to renew a token received at {@code receivedAt} that lives {@code lifetime}. */
        static Instant renewAt(Instant receivedAt, Duration lifetime) {
            Duration early = lifetime.dividedBy(2).compareTo(EARLY) < 0 ? lifetime.dividedBy(2) : EARLY;
            return receivedAt.plus(lifetime).minus(early);
        }
    }

    /** The most a token is renewed ahead of its end. */
    static final Duration EARLY = Duration.ofSeconds(30);

    private final Transport transport;
    private final Clock clock;
    private volatile JsonNode metadata;

    OAuthTokens(Transport transport, Clock clock) {
        this.transport = transport;
        this.clock = clock;
    }

    /** The authorization server metadata (RFC 8414), read on first use. */
    JsonNode metadata() {
        JsonNode m = metadata;
        if (m == null) {
            m = transport.json(transport
                    .request("/.well-known/oauth-authorization-server", Optional.empty())
                    .GET()
                    .build());
            metadata = m;
        }
        return m;
    }

    URI endpoint(String name) {
        String url = metadata().path(name).asText("");
        if (url.isEmpty()) {
            throw new WardenException(
                    0,
                    "unsupported",
                    "the server's metadata names no " + name,
                    java.util.List.of(),
                    "",
                    Optional.empty(),
                    null);
        }
        return URI.create(url);
    }

    /** POSTs {@code form} to the endpoint named {@code name} in the metadata; the JSON answer. */
    JsonNode post(String name, Map<String, String> form) {
        return transport.json(HttpRequest.newBuilder(endpoint(name))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Accept", "application/json")
                .POST(Transport.formBody(form))
                .build());
    }

    /** A token answer read with this client's clock. */
    Issued issued(JsonNode answer) {
        Duration lifetime =
                Duration.ofSeconds(Math.max(0, answer.path("expires_in").asLong(300)));
        Instant received = clock.instant();
        return new Issued(
                answer.path("access_token").asText(),
                received.plus(lifetime),
                Issued.renewAt(received, lifetime),
                Optional.ofNullable(answer.path("refresh_token").textValue()),
                answer.path("scope").asText(""));
    }

    Clock clock() {
        return clock;
    }
}
