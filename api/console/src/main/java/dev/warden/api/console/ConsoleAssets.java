package dev.warden.api.console;

import dev.warden.api.access.Access;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.NotFoundException;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.Params;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The console's scripts and styles, {@code GET /console/assets/{name}}: shipped in the jar, served by Warden (the
 * pages' policy allows no other origin), so the console works offline.
 */
public final class ConsoleAssets implements DeclaredService {
    private static final Map<String, String> TYPES = Map.of(
            "console.css", "text/css; charset=utf-8",
            "feed.js", "text/javascript; charset=utf-8",
            "dashboard.js", "text/javascript; charset=utf-8");

    private final Map<String, byte[]> files = Map.of(
            "console.css", load("console.css"), "feed.js", load("feed.js"), "dashboard.js", load("dashboard.js"));

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/{name}", Access.open(), this::asset);
    }

    private void asset(ServerRequest req, ServerResponse res) {
        String name = Params.path(req, "name", v -> v);
        byte[] body = files.get(name);
        if (body == null) {
            throw new NotFoundException(ErrorCode.NOT_FOUND, "no such asset");
        }
        res.status(Status.OK_200);
        res.header(HeaderNames.CONTENT_TYPE, TYPES.get(name));
        res.header(HeaderNames.CACHE_CONTROL, "no-cache");
        res.header(HeaderNames.create("X-Content-Type-Options"), "nosniff");
        res.send(body);
    }

    private static byte[] load(String name) {
        String resource = "/console/assets/" + name;
        try (InputStream in = ConsoleAssets.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
