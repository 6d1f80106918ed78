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
    /** What the token endpoint answered. */
    record Issued(String accessToken, Instant expiresAt, Optional<String> refreshToken, String scope) {}

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
        long expiresIn = answer.path("expires_in").asLong(300);
        return new Issued(
                answer.path("access_token").asText(),
                clock.instant().plusSeconds(expiresIn),
                Optional.ofNullable(answer.path("refresh_token").textValue()),
                answer.path("scope").asText(""));
    }

    Clock clock() {
        return clock;
    }
}
