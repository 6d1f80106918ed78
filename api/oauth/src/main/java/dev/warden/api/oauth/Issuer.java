package dev.warden.api.oauth;

import java.net.URI;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The issuer identifier: the one public URL of this authorization server, byte-identical in the metadata, the
 * {@code iss} of tokens and authorization responses, and every endpoint URL built from it (no trailing slash).
 * Configured, or {@code http://localhost:<port>} once the listener's port is known.
 */
public final class Issuer {
    private final AtomicReference<String> value = new AtomicReference<>();

    /** An issuer known now. */
    public static Issuer of(String url) {
        Issuer issuer = new Issuer();
        issuer.resolve(url);
        return issuer;
    }

    /** An issuer to be resolved once the server has started. */
    public static Issuer unresolved() {
        return new Issuer();
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

    /** The issuer URL. */
    public String value() {
        String v = value.get();
        if (v == null) {
            throw new IllegalStateException("the issuer is not known before the server has started");
        }
        return v;
    }

    /** The issuer's origin (RFC 6454): scheme, host and port, without the path ({@code https://example.com}). */
    public String origin() {
        URI uri = URI.create(value());
        return uri.getScheme() + "://" + uri.getRawAuthority();
    }

    /** The absolute URL of {@code path} (starting with {@code /}) under the issuer. */
    public String url(String path) {
        return value() + path;
    }

    /** The canonical URI of Warden's REST API as a protected resource: the issuer itself. */
    public String restResource() {
        return value();
    }

    /** The canonical URI of Warden's MCP endpoint. */
    public String mcpResource() {
        return url("/mcp");
    }

    @Override
    public String toString() {
        String v = value.get();
        return v == null ? "(unresolved)" : v;
    }
}
