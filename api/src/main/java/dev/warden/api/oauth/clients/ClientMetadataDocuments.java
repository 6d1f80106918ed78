package dev.warden.api.oauth.clients;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.errors.OAuthException;
import dev.warden.pipeline.contract.Json;
import dev.warden.sinks.webhooks.TargetGuard;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Client ID Metadata Documents (MCP authorization 2025-11-25; draft-ietf-oauth-client-id-metadata-document): a
 * {@code client_id} that is an {@code https} URL with a path names the client's metadata, fetched from that URL.
 * The fetch is guarded like a webhook target (no private, loopback or link-local address unless configured),
 * bounded in size (5 KiB) and time (5 s), never follows redirects, and is cached per the answer's
 * {@code Cache-Control: max-age} within 1 minute and 24 hours (5 minutes without one). The document's
 * {@code client_id} must equal the URL exactly; its {@code redirect_uris} are the only ones accepted; it must be
 * a public client ({@code token_endpoint_auth_method} {@code none}, the default).
 */
public final class ClientMetadataDocuments {
    static final int MAX_BYTES = 5 * 1024;
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final Duration DEFAULT_TTL = Duration.ofMinutes(5);
    private static final Duration MIN_TTL = Duration.ofMinutes(1);
    private static final Duration MAX_TTL = Duration.ofHours(24);
    private static final int MAX_CACHED = 1000;
    private static final Pattern MAX_AGE = Pattern.compile("max-age=(\\d{1,9})");

    private final HttpClient http;
    private final TargetGuard guard;
    private final Predicate<String> knownScope;
    private final InstantSource clock;
    private final Map<String, Cached> cache = new ConcurrentHashMap<>();

    private record Cached(OAuthClient client, Instant until) {
    }

    public ClientMetadataDocuments(HttpClient http, TargetGuard guard, Predicate<String> knownScope, InstantSource clock) {
        this.http = http;
        this.guard = guard;
        this.knownScope = knownScope;
        this.clock = clock;
    }

    /** True when {@code clientId} names a metadata document ({@code https} URL with a path). */
    public static boolean isDocumentUrl(String clientId) {
        if (!clientId.startsWith("https://")) {
            return false;
        }
        try {
            URI uri = new URI(clientId);
            return uri.getHost() != null && uri.getRawPath() != null && uri.getRawPath().length() > 1
                    && uri.getRawFragment() == null && uri.getRawUserInfo() == null;
        } catch (java.net.URISyntaxException e) {
            return false;
        }
    }

    /**
     * The client the document at {@code url} describes.
     *
     * @throws OAuthException {@code invalid_client} when it cannot be fetched or is not acceptable
     */
    public OAuthClient fetch(String url) {
        Instant now = clock.instant();
        Cached cached = cache.get(url);
        if (cached != null && cached.until().isAfter(now)) {
            return cached.client();
        }
        URI uri = URI.create(url);
        TargetGuard.Verdict verdict = guard.check(uri);
        if (!verdict.allowed()) {
            throw OAuthException.invalidClient("the client metadata document cannot be fetched: " + verdict.reason());
        }
        HttpResponse<InputStream> response;
        try {
            response = http.send(HttpRequest.newBuilder(uri).timeout(TIMEOUT).header("Accept", "application/json").GET()
                    .build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            throw OAuthException.invalidClient("the client metadata document cannot be fetched");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw OAuthException.invalidClient("the client metadata document cannot be fetched");
        }
        byte[] body;
        try (InputStream in = response.body()) {
            body = in.readNBytes(MAX_BYTES + 1);
        } catch (IOException e) {
            throw OAuthException.invalidClient("the client metadata document cannot be read");
        }
        if (response.statusCode() != 200) {
            throw OAuthException.invalidClient("the client metadata document answered " + response.statusCode());
        }
        if (body.length > MAX_BYTES) {
            throw OAuthException.invalidClient("the client metadata document is larger than " + MAX_BYTES + " bytes");
        }
        OAuthClient client = parse(url, body, now);
        Duration ttl = response.headers().firstValue("Cache-Control").flatMap(ClientMetadataDocuments::maxAge)
                .map(d -> d.compareTo(MIN_TTL) < 0 ? MIN_TTL : d.compareTo(MAX_TTL) > 0 ? MAX_TTL : d)
                .orElse(DEFAULT_TTL);
        if (cache.size() >= MAX_CACHED) {
            cache.entrySet().removeIf(e -> !e.getValue().until().isAfter(now));
            if (cache.size() >= MAX_CACHED) {
                cache.clear();
            }
        }
        cache.put(url, new Cached(client, now.plus(ttl)));
        return client;
    }

    OAuthClient parse(String url, byte[] body, Instant now) {
        JsonNode node;
        try {
            node = Json.mapper().readTree(body);
        } catch (IOException e) {
            throw OAuthException.invalidClient("the client metadata document is not JSON");
        }
        if (!(node instanceof ObjectNode object)) {
            throw OAuthException.invalidClient("the client metadata document is not a JSON object");
        }
        if (!url.equals(object.path("client_id").textValue())) {
            throw OAuthException.invalidClient("the client metadata document's client_id must equal its URL");
        }
        ClientMetadata metadata;
        try {
            metadata = ClientMetadata.read(object, OAuthClient.NONE, knownScope);
        } catch (OAuthException e) {
            throw OAuthException.invalidClient("the client metadata document is not acceptable: "
                    + e.detail().orElse(e.error()));
        }
        if (!metadata.authMethod().equals(OAuthClient.NONE)) {
            throw OAuthException.invalidClient("a client metadata document client must be public "
                    + "(token_endpoint_auth_method none)");
        }
        String name = metadata.clientName().isEmpty() ? URI.create(url).getHost() : metadata.clientName();
        return new OAuthClient(url, Optional.empty(), Optional.empty(), name, metadata.redirectUris(), OAuthClient.NONE,
                metadata.grantTypes(), metadata.scope(), metadata.echo(), "metadata-document", now);
    }

    private static Optional<Duration> maxAge(String cacheControl) {
        if (cacheControl.contains("no-store") || cacheControl.contains("no-cache")) {
            return Optional.of(MIN_TTL);
        }
        Matcher m = MAX_AGE.matcher(cacheControl);
        return m.find() ? Optional.of(Duration.ofSeconds(Long.parseLong(m.group(1)))) : Optional.empty();
    }
}
