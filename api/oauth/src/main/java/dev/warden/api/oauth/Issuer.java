package dev.warden.api.oauth;

import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The issuer identifier: the one public URL of this authorization server, byte-identical in the metadata, the
 * {@code iss} of authorization responses, and every endpoint URL built from it (no trailing slash). Configured, or,
 * when none is, {@code http://localhost:<port>} once the listener's port is known: the <em>loopback</em> issuer.
 *
 * <p>A loopback issuer answers to each spelling people and tools use for it (D182): {@code localhost},
 * {@code 127.0.0.1} and {@code [::1]} with the same port. A request that reached the server through one of them
 * ({@link #spelledAs}) sees the issuer, the endpoints and the resources spelled that way ({@link #value()} and
 * every URL built from it), because MCP clients compare the protected resource's {@code resource} with the URL they
 * used (RFC 9728 section 3.3) and OAuth clients compare the metadata's {@code issuer} with where they fetched it
 * (RFC 8414 section 3.3). Tokens carry the {@linkplain #canonical() canonical} spelling in {@code iss} and
 * {@code aud} whatever spelling issued them, and a resource named in any spelling is the same resource
 * ({@link #canonicalize}), so a token issued through {@code 127.0.0.1} works through {@code localhost}. A
 * configured issuer has no other spelling.
 */
public final class Issuer {
    private static final String MCP_PATH = "/mcp";

    private final AtomicReference<String> value = new AtomicReference<>();
    private final boolean loopback;
    /** The spelling of the request being served on this thread, when it is another than the canonical one. */
    private final ThreadLocal<String> spelling = new ThreadLocal<>();
    /** {@link #spellings()}, once the issuer is known. */
    private volatile List<String> spellings;

    private Issuer(boolean loopback) {
        this.loopback = loopback;
    }

    /** A configured issuer, known now. */
    public static Issuer of(String url) {
        Issuer issuer = new Issuer(false);
        issuer.resolve(url);
        return issuer;
    }

    /** An issuer to be resolved once the server has started. */
    public static Issuer unresolved() {
        return new Issuer(false);
    }

    /** The loopback issuer of a server with no configured issuer, resolved once its port is known. */
    public static Issuer loopback() {
        return new Issuer(true);
    }

    /** Sets the URL; once only. */
    public void resolve(String url) {
        if (url.endsWith("/")) {
            throw new IllegalArgumentException("an issuer has no trailing slash: " + url);
        }
        if (!value.compareAndSet(null, url) && !value.get().equals(url)) {
            throw new IllegalStateException("the issuer is already " + value.get());
        }
    }

    /**
     * The issuer as the request being served spelled it: the canonical URL, or (a loopback issuer only) another
     * loopback spelling of it.
     */
    public String value() {
        String asked = spelling.get();
        return asked != null ? asked : canonical();
    }

    /** The one URL tokens carry ({@code iss}, and the base of {@code aud}): the configured or default issuer. */
    public String canonical() {
        String v = value.get();
        if (v == null) {
            throw new IllegalStateException("the issuer is not known before the server has started");
        }
        return v;
    }

    /**
     * The issuer spelled as {@code host} (a request's {@code Host} header) spells it, when this is a loopback
     * issuer and {@code host} is one of its spellings ({@code localhost}, {@code 127.0.0.1}, {@code [::1]}, same
     * port); empty otherwise (the canonical URL applies).
     */
    public Optional<String> spelledAs(String host) {
        if (!loopback || host == null || value.get() == null) {
            return Optional.empty();
        }
        String asked = "http://" + host.toLowerCase(Locale.ROOT);
        for (String s : spellings()) {
            if (s.equals(asked)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    /** Serves a request under {@code spelledAs} (empty: the canonical URL), on this thread, until it returns. */
    public void serve(Optional<String> spelledAs, Runnable request) {
        if (spelledAs.isEmpty() || spelledAs.get().equals(canonical())) {
            request.run();
            return;
        }
        spelling.set(spelledAs.get());
        try {
            request.run();
        } finally {
            spelling.remove();
        }
    }

    /** {@code uri} with a loopback spelling of the issuer replaced by the canonical one; otherwise as it is. */
    public String canonicalize(String uri) {
        if (loopback && value.get() != null) {
            for (String s : spellings()) {
                if (uri.equals(s) || uri.startsWith(s + "/")) {
                    return canonical() + uri.substring(s.length());
                }
            }
        }
        return uri;
    }

    /** {@code canonicalUri} as the request being served spells the issuer (the inverse of {@link #canonicalize}). */
    public String outward(String canonicalUri) {
        String c = canonical();
        if (canonicalUri.equals(c) || canonicalUri.startsWith(c + "/")) {
            return value() + canonicalUri.substring(c.length());
        }
        return canonicalUri;
    }

    /**
     * The loopback spellings of this issuer: {@code localhost}, {@code 127.0.0.1} and {@code [::1]}, same port. Made
     * once: the issuer is resolved once, and every request of a loopback issuer asks.
     */
    private List<String> spellings() {
        List<String> made = spellings;
        if (made == null) {
            made = spellingsOf(canonical());
            spellings = made;
        }
        return made;
    }

    private static List<String> spellingsOf(String canonical) {
        URI uri = URI.create(canonical);
        String port = uri.getPort() < 0 ? "" : ":" + uri.getPort();
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        return List.of(
                uri.getScheme() + "://localhost" + port + path,
                uri.getScheme() + "://127.0.0.1" + port + path,
                uri.getScheme() + "://[::1]" + port + path);
    }

    /** The issuer's origin (RFC 6454), as the request spelled it: scheme, host and port, without the path. */
    public String origin() {
        URI uri = URI.create(value());
        return uri.getScheme() + "://" + uri.getRawAuthority();
    }

    /** The absolute URL of {@code path} (starting with {@code /}) under the issuer, as the request spelled it. */
    public String url(String path) {
        return value() + path;
    }

    /** The URI of Warden's REST API as a protected resource, as the request spelled it: the issuer itself. */
    public String restResource() {
        return value();
    }

    /** The URI of Warden's MCP endpoint, as the request spelled it. */
    public String mcpResource() {
        return url(MCP_PATH);
    }

    /** The URI of Warden's MCP endpoint as tokens name it ({@code aud}): under the canonical issuer. */
    public String canonicalMcpResource() {
        return canonical() + MCP_PATH;
    }

    @Override
    public String toString() {
        String v = value.get();
        return v == null ? "(unresolved)" : v;
    }
}
