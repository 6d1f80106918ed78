package dev.warden.api.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.warden.api.access.Access;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * {@code GET /openapi.json} (public): the OpenAPI 3.1 description of every route Warden mounts, exactly the document
 * kept in the repository ({@value #RESOURCE} on the classpath; what it covers and how tests hold it to the code:
 * docs/api-contract.md). Mounted at the root. The document is read once, at construction; every request is answered
 * with the same bytes, cacheable for 5 minutes. The token endpoints' {@code grant_type} enum follows the server's
 * token grants: when they are the document's, the bytes are the file's; when a grant was added, the enum lists it.
 * Thread-safe.
 */
public final class OpenApiRoutes implements DeclaredService {
    /** Where the document is on the classpath. */
    public static final String RESOURCE = "openapi/openapi.json";

    private final byte[] document;

    /** The token endpoints, whose form's {@code grant_type} enum is the server's grant types. */
    static final List<String> TOKEN_PATHS = List.of("/mcp/token", "/oauth/token");

    private static final String GRANT_TYPE_ENUM =
            "/post/requestBody/content/application~1x-www-form-urlencoded/schema" + "/properties/grant_type/enum";

    /**
     * Reads the document from the classpath.
     *
     * @param grantTypes the grant types the token endpoint offers
     * @throws IllegalStateException when it is not there (a broken build)
     */
    public OpenApiRoutes(List<String> grantTypes) {
        this.document = withGrantTypes(load(), grantTypes);
    }

    /** {@code document} with {@code grantTypes} as the token endpoints' {@code grant_type} enum. */
    static byte[] withGrantTypes(byte[] document, List<String> grantTypes) {
        try {
            JsonNode original = Json.mapper().readTree(document);
            JsonNode doc = original.deepCopy();
            for (String path : TOKEN_PATHS) {
                JsonNode values = doc.path("paths").path(path).at(GRANT_TYPE_ENUM);
                if (!(values instanceof ArrayNode array)) {
                    throw new IllegalStateException("the OpenAPI document has no grant_type enum at " + path);
                }
                array.removeAll();
                grantTypes.forEach(array::add);
            }
            if (doc.equals(original)) {
                return document;
            }
            return Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsBytes(doc);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
