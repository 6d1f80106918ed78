package dev.warden.api.oauth.clients;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.errors.OAuthException;
import dev.warden.pipeline.contract.Json;
import dev.warden.runtime.outbound.GuardedHttp;
import dev.warden.runtime.outbound.TargetGuard;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Client ID Metadata Documents (MCP authorization 2025-11-25; draft-ietf-oauth-client-id-metadata-document): a
 * {@code client_id} that is an {@code https} URL with a path names the client's metadata, fetched from that URL.
 * Anyone can make Warden fetch one (an authorization request is enough), so the fetch is held tight:
 * <ul>
 * <li>port 443 only, unless {@code warden.oauth.client-metadata-document-ports} says otherwise;</li>
 * <li>the host is resolved once, every address must be public (the webhook guard, unless private targets are
 * allowed), and the connection goes to the addresses that passed ({@link GuardedHttp});</li>
 * <li>one deadline of 5 s covers connecting, the headers and the body, however slowly the server sends;</li>
 * <li>at most 5 KiB is read; redirects are never followed;</li>
 * <li>a document is cached per its {@code Cache-Control: max-age}, within 1 minute and 24 hours (5 minutes
 * without one); a failure is cached for 30 seconds, so a slow or broken URL cannot be made to cost a fetch per
 * request.</li>
 * </ul>
 * The document's {@code client_id} must equal the URL exactly; its {@code redirect_uris} are the only ones
 * accepted; it must be a public client ({@code token_endpoint_auth_method} {@code none}, the default).
 */
public final class ClientMetadataDocuments {
    static final int MAX_BYTES = 5 * 1024;
    /** The whole fetch, connect to last byte. */
    public static final Duration DEADLINE = Duration.ofSeconds(5);

    private static final Duration DEFAULT_TTL = Duration.ofMinutes(5);
    private static final Duration MIN_TTL = Duration.ofMinutes(1);
    private static final Duration MAX_TTL = Duration.ofHours(24);
    /** How long a failed fetch is answered from memory. */
    static final Duration FAILURE_TTL = Duration.ofSeconds(30);

    private static final int MAX_CACHED = 1000;
    private static final Pattern MAX_AGE = Pattern.compile("max-age=(\\d{1,9})");

    private final GuardedHttp http;
    private final List<Integer> ports;
    private final Predicate<String> knownScope;
    private final Set<String> grantTypes;
    private final InstantSource clock;
    private final Map<String, Cached> cache = new ConcurrentHashMap<>();

    /** A document's client, or why it could not be had, until {@code until}. */
    private record Cached(Optional<OAuthClient> client, Optional<String> failure, Instant until) {}

    /**
     * @param http  the guarded client the documents are fetched with (its deadline is the fetch's)
     * @param ports      the ports a document URL may name (443 when it names none)
     * @param grantTypes the grant types a document may list (the server's registrable token grants)
     */
    public ClientMetadataDocuments(
            GuardedHttp http,
            List<Integer> ports,
            Predicate<String> knownScope,
            Set<String> grantTypes,
            InstantSource clock) {
        this.http = http;
        this.ports = List.copyOf(ports);
        this.knownScope = knownScope;
        this.grantTypes = Set.copyOf(grantTypes);
        this.clock = clock;
    }

    /** True when {@code clientId} names a metadata document ({@code https} URL with a path). */
    public static boolean isDocumentUrl(String clientId) {
        if (!clientId.startsWith("https://")) {
            return false;
        }
        try {
            URI uri = new URI(clientId);
            return uri.getHost() != null
                    && uri.getRawPath() != null
                    && uri.getRawPath().length() > 1
                    && uri.getRawFragment() == null
                    && uri.getRawUserInfo() == null;
        } catch (URISyntaxException e) {
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
            return cached.client()
                    .orElseThrow(
                            () -> OAuthException.invalidClient(cached.failure().orElseThrow()));
        }
        try {
            Fetched fetched = fetchNow(url, now);
            remember(url, new Cached(Optional.of(fetched.client()), Optional.empty(), now.plus(fetched.ttl())), now);
            return fetched.client();
        } catch (OAuthException e) {
            remember(
                    url,
                    new Cached(
                            Optional.empty(),
                            Optional.of(e.detail().orElse("the client metadata document " + "cannot be used")),
                            now.plus(FAILURE_TTL)),
                    now);
            throw e;
        }
    }

    private record Fetched(OAuthClient client, Duration ttl) {}

    private Fetched fetchNow(String url, Instant now) {
        URI uri = URI.create(url);
        int port = uri.getPort() < 0 ? 443 : uri.getPort();
        if (!ports.contains(port)) {
            throw OAuthException.invalidClient("the client metadata document cannot be fetched: port " + port
                    + " is not allowed (" + ports.stream().map(String::valueOf).collect(Collectors.joining(", "))
                    + ")");
        }
        TargetGuard.formProblem(uri).ifPresent(problem -> {
            throw OAuthException.invalidClient("the client metadata document cannot be fetched: its URL " + problem);
        });
        GuardedHttp.Answer answer;
        try {
            answer = http.send("GET", uri, Map.of("Accept", "application/json"), Optional.empty(), MAX_BYTES);
        } catch (GuardedHttp.RefusedTarget e) {
            throw OAuthException.invalidClient("the client metadata document cannot be fetched: " + e.getMessage());
        } catch (HttpTimeoutException e) {
            throw OAuthException.invalidClient(
                    "the client metadata document did not arrive within " + DEADLINE.toSeconds() + " s");
        } catch (IOException e) {
            throw OAuthException.invalidClient("the client metadata document cannot be fetched");
        }
        if (answer.status() != 200) {
            throw OAuthException.invalidClient("the client metadata document answered " + answer.status());
        }
        if (answer.truncated()) {
            throw OAuthException.invalidClient("the client metadata document is larger than " + MAX_BYTES + " bytes");
        }
        OAuthClient client = parse(url, answer.body(), now);
        Duration ttl = answer.header("Cache-Control")
                .flatMap(ClientMetadataDocuments::maxAge)
                .map(d -> d.compareTo(MIN_TTL) < 0 ? MIN_TTL : d.compareTo(MAX_TTL) > 0 ? MAX_TTL : d)
                .orElse(DEFAULT_TTL);
        return new Fetched(client, ttl);
    }

    private void remember(String url, Cached entry, Instant now) {
        if (cache.size() >= MAX_CACHED) {
            cache.entrySet().removeIf(e -> !e.getValue().until().isAfter(now));
            if (cache.size() >= MAX_CACHED) {
                cache.clear();
            }
        }
        cache.put(url, entry);
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
            metadata = ClientMetadata.read(object, OAuthClient.NONE, knownScope, grantTypes);
        } catch (OAuthException e) {
            throw OAuthException.invalidClient("the client metadata document is not acceptable: "
                    + e.detail().orElse(e.error()));
        }
        if (!metadata.authMethod().equals(OAuthClient.NONE)) {
            throw OAuthException.invalidClient(
                    "a client metadata document client must be public " + "(token_endpoint_auth_method none)");
        }
        String name = metadata.clientName().isEmpty() ? URI.create(url).getHost() : metadata.clientName();
        return new OAuthClient(
                url,
                Optional.empty(),
                Optional.empty(),
                name,
                metadata.redirectUris(),
                OAuthClient.NONE,
                metadata.grantTypes(),
                metadata.scope(),
                metadata.echo(),
                "metadata-document",
                now);
    }

    private static Optional<Duration> maxAge(String cacheControl) {
        if (cacheControl.contains("no-store") || cacheControl.contains("no-cache")) {
            return Optional.of(MIN_TTL);
        }
        Matcher m = MAX_AGE.matcher(cacheControl);
        return m.find() ? Optional.of(Duration.ofSeconds(Long.parseLong(m.group(1)))) : Optional.empty();
    }
}
