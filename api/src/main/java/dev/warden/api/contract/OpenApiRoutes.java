package dev.warden.api.contract;

import dev.warden.api.access.Access;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * {@code GET /openapi.json} (public): the OpenAPI 3.1 description of every route Warden mounts, exactly the document
 * kept in the repository ({@value #RESOURCE} on the classpath; what it covers and how tests hold it to the code:
 * docs/api-contract.md). Mounted at the root. The document is read once, at construction; every request is answered
 * with the same bytes, cacheable for 5 minutes. Thread-safe.
 */
public final class OpenApiRoutes implements DeclaredService {
    /** Where the document is on the classpath. */
    public static final String RESOURCE = "openapi/openapi.json";

    private final byte[] document;

    /**
     * Reads the document from the classpath.
     *
     * @throws IllegalStateException when it is not there (a broken build)
     */
    public OpenApiRoutes() {
        this.document = load();
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/openapi.json", Access.open(), this::send);
    }

    private void send(ServerRequest req, ServerResponse res) {
        res.status(Status.OK_200);
        res.header(HeaderValues.CONTENT_TYPE_JSON);
        res.header(HeaderNames.CACHE_CONTROL, "public, max-age=300");
        res.send(document);
    }

    private static byte[] load() {
        try (InputStream in = OpenApiRoutes.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the OpenAPI document " + RESOURCE + " is not on the classpath");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
