package dev.warden.api.oauth.authorize;

import dev.warden.api.access.Access;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * The scripts of the login page, served from Warden's own origin (the pages' policy allows no other): today the
 * passkey sign-in script, {@code GET /oauth/assets/passkey.js}.
 */
public final class LoginAssets implements DeclaredService {
    static final String PASSKEY_SCRIPT = "/oauth/assets/passkey.js";

    private final byte[] passkeyScript = load("/oauth/assets/passkey.js");

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/passkey.js", Access.open(), this::passkey);
    }

    private void passkey(ServerRequest req, ServerResponse res) {
        res.status(Status.OK_200);
        res.header(HeaderNames.CONTENT_TYPE, "text/javascript; charset=utf-8");
        res.header(HeaderNames.CACHE_CONTROL, "no-cache");
        res.header(HeaderNames.create("X-Content-Type-Options"), "nosniff");
        res.send(passkeyScript);
    }

    private static byte[] load(String resource) {
        try (InputStream in = LoginAssets.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
