package dev.warden.api.oauth.keys;

import dev.warden.api.access.Access;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerResponse;
import java.nio.charset.StandardCharsets;

/** {@code GET /oauth/jwks} (public): the public signing keys as a JWK set (RFC 7517), cacheable for 5 minutes. */
public final class JwksRoutes implements DeclaredService {
    private final SigningKeys keys;

    public JwksRoutes(SigningKeys keys) {
        this.keys = keys;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/", Access.open(), (req, res) -> send(res));
    }

    private void send(ServerResponse res) {
        res.status(Status.OK_200);
        res.header(HeaderNames.CONTENT_TYPE, "application/jwk-set+json");
        res.header(HeaderNames.CACHE_CONTROL, "public, max-age=300");
        res.send(keys.publicSet().toString(true).getBytes(StandardCharsets.UTF_8));
    }
}
