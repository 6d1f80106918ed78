package dev.warden.api.oauth.clients;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Which redirect URIs a client may register and how a requested one matches a registered one.
 *
 * <ul>
 *   <li>Registered: {@code https} URLs; {@code http} only on a loopback host ({@code localhost}, {@code 127.0.0.1},
 *       {@code [::1]}, RFC 8252 section 7.3); or a private-use scheme of a native app (RFC 8252 section 7.1, e.g.
 *       {@code com.example.app:/cb}, {@code cursor://...}). Never a fragment, user info, or a scheme that runs or
 *       reads something in the browser ({@code javascript}, {@code data}, {@code file}, ...).</li>
 *   <li>Matched: exactly, character for character, except that the port of a loopback {@code http} redirect is
 *       ignored (native apps listen on an ephemeral port, RFC 8252 section 7.3).</li>
 * </ul>
 */
public final class RedirectUris {
    /** At most this many per client. */
    public static final int MAX_COUNT = 10;
    /** Longest accepted URI. */
    public static final int MAX_LENGTH = 2000;

    private static final Set<String> FORBIDDEN_SCHEMES = Set.of(
            "javascript",
            "data",
            "file",
            "vbscript",
            "about",
            "blob",
            "ftp",
            "ws",
            "wss",
            "mailto",
            "tel",
            "urn",
            "chrome",
            "view-source");
    private static final Set<String> LOOPBACK_HOSTS = Set.of("localhost", "127.0.0.1", "[::1]", "::1");

    private RedirectUris() {}

    /** What is wrong with {@code uri} as a redirect URI to register, if anything. */
    public static Optional<String> problem(String uri) {
        if (uri.isEmpty() || uri.length() > MAX_LENGTH) {
            return Optional.of("must be 1 to " + MAX_LENGTH + " characters");
        }
        URI parsed;
        try {
            parsed = new URI(uri);
        } catch (URISyntaxException e) {
            return Optional.of("is not a valid URI");
        }
        if (!parsed.isAbsolute()) {
            return Optional.of("must be an absolute URI");
        }
        if (parsed.getRawFragment() != null || uri.contains("#")) {
            return Optional.of("must not contain a fragment");
        }
        String scheme = parsed.getScheme().toLowerCase(Locale.ROOT);
        if (FORBIDDEN_SCHEMES.contains(scheme)) {
            return Optional.of("must not use the " + scheme + " scheme");
        }
        if (parsed.getRawUserInfo() != null) {
            return Optional.of("must not contain user information");
        }
        if (scheme.equals("https")) {
            return parsed.getHost() == null ? Optional.of("must name a host") : Optional.empty();
        }
        if (scheme.equals("http")) {
            return parsed.getHost() != null && isLoopback(parsed)
                    ? Optional.empty()
                    : Optional.of("must use https, or http on a loopback host");
        }
        return Optional.empty();
    }

    /** True when {@code requested} matches one of {@code registered}. */
    public static boolean matches(List<String> registered, String requested) {
        return registered.stream().anyMatch(r -> matches(r, requested));
    }

    static boolean matches(String registered, String requested) {
        if (registered.equals(requested)) {
            return true;
        }
        try {
            URI reg = new URI(registered);
            URI req = new URI(requested);
            return "http".equals(reg.getScheme())
                    && "http".equals(req.getScheme())
                    && isLoopback(reg)
                    && reg.getHost().equals(req.getHost())
                    && Objects.equals(reg.getRawPath(), req.getRawPath())
                    && Objects.equals(reg.getRawQuery(), req.getRawQuery())
                    && req.getRawFragment() == null
                    && req.getRawUserInfo() == null;
        } catch (URISyntaxException e) {
            return false;
        }
    }

    private static boolean isLoopback(URI uri) {
        return uri.getHost() != null && LOOPBACK_HOSTS.contains(uri.getHost().toLowerCase(Locale.ROOT));
    }
}
