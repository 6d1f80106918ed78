package dev.warden.api.users.passkeys;

import java.net.URI;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Warden as a WebAuthn relying party: its id is the host of the public origin (the issuer's), and assertions are
 * accepted from that origin only. Resolved on each use, as the issuer may be known only once the server listens.
 * Browsers refuse an IP address as a relying party id: sign in with passkeys through a host name (in development,
 * {@code localhost}).
 */
public final class RelyingParty {
    /** The name authenticators show beside the account. */
    static final String NAME = "Warden";

    private final Supplier<String> publicOrigin;

    public RelyingParty(Supplier<String> publicOrigin) {
        this.publicOrigin = publicOrigin;
    }

    /** The origin of Warden's pages, e.g. {@code https://warden.example.com}. */
    public String origin() {
        URI uri = URI.create(publicOrigin.get());
        String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
        int port = uri.getPort();
        boolean defaultPort =
                port == -1 || scheme.equals("https") && port == 443 || scheme.equals("http") && port == 80;
        return scheme + "://" + id() + (defaultPort ? "" : ":" + port);
    }

    /** The relying party id: the public origin's host, e.g. {@code warden.example.com}. */
    public String id() {
        return URI.create(publicOrigin.get()).getHost().toLowerCase(Locale.ROOT);
    }
}
