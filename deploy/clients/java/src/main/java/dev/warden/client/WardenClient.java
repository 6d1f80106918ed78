package dev.warden.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A client of one Warden server. {@link #authorize} is the hot path: one pooled HTTP client whose keep-alive
 * connections every thread shares. {@link #events} reads the event stream and resumes it by itself. The REST
 * resources are reached with {@link #get}, {@link #post}, {@link #patch} and {@link #delete} (JSON in, JSON out),
 * as the API reference (the OpenAPI document at {@code /openapi.json}) describes them. Every refusal is a
 * {@link WardenException}. Thread-safe; {@link #close()} releases the connections.
 *
 * <pre>{@code
 * try (WardenClient warden = WardenClient.builder(URI.create("http://localhost:8080")).token(agentToken).build()) {
 *     Decision d = warden.authorize(AuthorizationRequest.of(agentId, "read", "mcp:github:repo"));
 * }
 * }</pre>
 */
public final class WardenClient implements AutoCloseable {
    /** The {@code User-Agent} of every request. */
    public static final String USER_AGENT = "warden-client-java/0.1.0";

    private final Transport transport;
    private final OAuthTokens tokens;
    private final Optional<Credentials> credentials;

    private WardenClient(Transport transport, OAuthTokens tokens, Function<OAuthTokens, Credentials> credentials) {
        this.transport = transport;
        this.tokens = tokens;
        this.credentials = Optional.ofNullable(credentials).map(f -> f.apply(tokens));
    }

    /** A builder for the server at {@code baseUri} ({@code http://localhost:8080}). */
    public static Builder builder(URI baseUri) {
        return new Builder(baseUri);
    }

    /** The server's base URL. */
    public URI baseUri() {
        return transport.base();
    }

    /** Asks {@code POST /authorize}; a denial is a {@link Decision}, not an exception. */
    public Decision authorize(AuthorizationRequest request) {
        return Decision.of(post("/authorize", request.body()));
    }

    /** Opens the event stream; iterate it, and close it when done. */
    public EventStream events(EventStream.Options options) {
        return new EventStream(transport, requireCredentials(), options);
    }

    /** The device sign-in of the public client {@code clientId} (the CLI's is {@code warden-cli}). */
    public DeviceLogin deviceLogin(String clientId) {
        return new DeviceLogin(tokens, clientId, Thread::sleep);
    }

    /** The device sign-in with {@code sleeper} between polls. */
    public DeviceLogin deviceLogin(String clientId, DeviceLogin.Sleeper sleeper) {
        return new DeviceLogin(tokens, clientId, sleeper);
    }

    /**
     * Revokes {@code token} (a refresh token ends its whole grant) as the public client {@code clientId}
     * (RFC 7009). The server answers the same whatever the token was.
     */
    public void revokeToken(String clientId, String token) {
        tokens.post("revocation_endpoint", java.util.Map.of("client_id", clientId, "token", token));
    }

    /** The authorization server metadata ({@code /.well-known/oauth-authorization-server}). */
    public JsonNode oauthMetadata() {
        return tokens.metadata();
    }

    /** {@code GET path} (with its query, already encoded). */
    public JsonNode get(String path) {
        return call(path, b -> b.GET());
    }

    /** {@code POST path} with {@code body} as JSON (a map, a list, a record, a {@link JsonNode}). */
    public JsonNode post(String path, Object body) {
        return call(path, b -> b.header("Content-Type", "application/json").POST(Transport.jsonBody(body)));
    }

    /** {@code PATCH path} with {@code body} as JSON. */
    public JsonNode patch(String path, Object body) {
        return call(path, b -> b.header("Content-Type", "application/json").method("PATCH", Transport.jsonBody(body)));
    }

    /** {@code DELETE path}; the answer's JSON (a missing node for 204). */
    public JsonNode delete(String path) {
        return call(path, b -> b.DELETE());
    }

    /**
     * {@code GET path} with {@code accept}, copying the body to {@code out} as it arrives; calls {@code progress}
     * with the bytes copied so far every 64 KiB. Returns the bytes copied.
     */
    public long download(String path, String accept, OutputStream out, Consumer<Long> progress) {
        Credentials credentials = requireCredentials();
        String bearer = credentials.bearer();
        HttpResponse<InputStream> response;
        try {
            response = transport.stream(downloadRequest(path, accept, bearer));
        } catch (WardenException e) {
            // As call(): a token revoked or expired early is renewed, once (nothing was copied yet).
            if (e.status() != 401 || !credentials.invalidate(bearer)) {
                throw e;
            }
            response = transport.stream(downloadRequest(path, accept, credentials.bearer()));
        }
        long copied = 0;
        long reported = 0;
        byte[] buffer = new byte[8192];
        try (InputStream in = response.body()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
                copied += n;
                if (copied - reported >= 64 * 1024) {
                    reported = copied;
                    progress.accept(copied);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("the download of " + path + " failed after " + copied + " bytes", e);
        }
        progress.accept(copied);
        return copied;
    }

    private HttpRequest downloadRequest(String path, String accept, String bearer) {
        return transport
                .request(path, Optional.of(bearer))
                .timeout(Duration.ofHours(1))
                .setHeader("Accept", accept)
                .GET()
                .build();
    }

    private JsonNode call(String path, Function<HttpRequest.Builder, HttpRequest.Builder> method) {
        Optional<String> bearer = credentials.map(Credentials::bearer);
        try {
            return transport.json(method.apply(transport.request(path, bearer)).build());
        } catch (WardenException e) {
            // An access token revoked or expired early: a renewable credential fetches a new one, once.
            if (e.status() == 401 && bearer.isPresent() && credentials.get().invalidate(bearer.get())) {
                return transport.json(method.apply(transport.request(path, credentials.map(Credentials::bearer)))
                        .build());
            }
            throw e;
        }
    }

    private Credentials requireCredentials() {
        return credentials.orElseThrow(() -> new IllegalStateException("this client has no credentials"));
    }

    @Override
    public void close() {
        transport.http().close();
    }

    /** Builds a {@link WardenClient}. */
    public static final class Builder {
        private final URI baseUri;
        private Function<OAuthTokens, Credentials> credentials;
        private Duration timeout = Duration.ofSeconds(30);
        private Duration connectTimeout = Duration.ofSeconds(10);
        private Clock clock = Clock.systemUTC();

        private Builder(URI baseUri) {
            if (baseUri == null
                    || baseUri.getScheme() == null
                    || !(baseUri.getScheme().equals("http")
                            || baseUri.getScheme().equals("https"))) {
                throw new IllegalArgumentException("the base URL must be http(s)://host[:port], got " + baseUri);
            }
            this.baseUri = baseUri;
        }

        /** Requests carry this API token (an agent's {@code wdn_…} token, or a user's). */
        public Builder token(String token) {
            Credentials fixed = Credentials.token(token);
            this.credentials = t -> fixed;
            return this;
        }

        /** Requests carry {@code credentials}. */
        public Builder credentials(Credentials credentials) {
            this.credentials = t -> credentials;
            return this;
        }

        /**
         * A service agent bound as an OAuth client: access tokens from the client-credentials grant, renewed before
         * they expire. {@code scope} may be null (the client's registered scope).
         */
        public Builder clientCredentials(String clientId, String clientSecret, String scope) {
            this.credentials = t -> new ClientCredentials(t, clientId, clientSecret, Optional.ofNullable(scope));
            return this;
        }

        /**
         * A person's sign-in of the public client {@code clientId} (a {@link DeviceLogin}): {@code session} is
         * used until its access token is about to expire, then renewed with its refresh token; each renewal goes
         * to {@code onRenewal}, to be stored in place of the old session.
         */
        public Builder session(
                String clientId,
                RefreshTokenCredentials.Session session,
                Consumer<RefreshTokenCredentials.Session> onRenewal) {
            this.credentials = t -> new RefreshTokenCredentials(t, clientId, session, onRenewal);
            return this;
        }

        /** The most a request may take (default 30 s; the event stream and downloads have their own). */
        public Builder timeout(Duration timeout) {
            this.timeout = timeout;
            return this;
        }

        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
            return this;
        }

        /** The clock access tokens' expiry is measured with. */
        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        public WardenClient build() {
            HttpClient http = HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(connectTimeout)
                    .followRedirects(HttpClient.Redirect.NEVER)
                    .build();
            Transport transport = new Transport(baseUri, http, timeout, USER_AGENT);
            return new WardenClient(transport, new OAuthTokens(transport, clock), credentials);
        }
    }
}
