package dev.warden.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import dev.warden.api.contract.OpenApiRoutes;
import dev.warden.pipeline.contract.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * Holds real responses to the OpenAPI document ({@code api/rest/src/main/resources/openapi/openapi.json}, served at
 * {@code GET /openapi.json}; docs/api-contract.md): for an operation named by its method and documented path
 * ({@code /agents/{id}}), the response's status must be documented, its {@code Content-Type} one of that response's
 * media types (parameters such as {@code charset} aside), a response documented without content must have no body,
 * and a JSON body must validate against the media type's schema. Schemas are checked as JSON Schema 2020-12
 * (OpenAPI 3.1's dialect), every {@code #/components/schemas/X} resolved as {@code #/$defs/X} of one schema document,
 * with format assertions on ({@code date-time}, {@code uri}, {@code email}). Counts what it validated. Thread-safe.
 *
 * <pre>{@code
 * ContractValidator contract = ContractValidator.fromClasspath();
 * Http.Response res = contract.validate("GET", "/agents/{id}", http.get("/agents/" + id, token));
 * }</pre>
 */
public final class ContractValidator {
    private static final String COMPONENT_SCHEMAS = "#/components/schemas/";
    private static final int BODY_SHOWN = 4000;
    private static final Set<String> METHODS =
            Set.of("get", "put", "post", "delete", "patch", "head", "options", "trace");

    private final JsonNode document;
    private final ObjectNode defs;
    private final JsonSchemaFactory factory = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012);
    private final SchemaValidatorsConfig config =
            SchemaValidatorsConfig.builder().formatAssertionsEnabled(true).build();
    private final Map<String, JsonSchema> schemas = new ConcurrentHashMap<>();
    private final Set<String> validated = ConcurrentHashMap.newKeySet();
    private final AtomicInteger count = new AtomicInteger();

    /** A validator of responses against {@code document}, an OpenAPI 3.1 document as a JSON tree. */
    public ContractValidator(JsonNode document) {
        this.document = document;
        this.defs = (ObjectNode)
                rewriteRefs(document.path("components").path("schemas").deepCopy());
    }

    /** A validator against the document on the classpath, the one {@code GET /openapi.json} serves. */
    public static ContractValidator fromClasspath() {
        return new ContractValidator(classpathDocument());
    }

    /** The document on the classpath, as a JSON tree. */
    public static JsonNode classpathDocument() {
        try (InputStream in = ContractValidator.class.getClassLoader().getResourceAsStream(OpenApiRoutes.RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(OpenApiRoutes.RESOURCE + " is not on the classpath");
            }
            return Json.mapper().readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Checks {@code response} as an answer of the operation {@code method pathPattern}.
     *
     * @return {@code response}, for use in the same expression that sent it
     * @throws AssertionError naming every difference from the document, with the body
     */
    public Http.Response validate(String method, String pathPattern, Http.Response response) {
        check(method, pathPattern, response.status(), response.header("Content-Type"), response.body());
        return response;
    }

    /**
     * Checks one answer of the operation {@code method pathPattern}: its status, content type and body.
     *
     * @throws AssertionError naming every difference from the document, with the body
     */
    public void check(String method, String pathPattern, int status, Optional<String> contentType, String body) {
        String operation = method.toUpperCase(Locale.ROOT) + " " + pathPattern;
        JsonNode op = document.path("paths").path(pathPattern).path(method.toLowerCase(Locale.ROOT));
        if (!op.isObject()) {
            throw new AssertionError(operation + " is not documented");
        }
        JsonNode response = documentedResponse(op.path("responses"), status)
                .orElseThrow(() -> failure(
                        operation,
                        status,
                        "status " + status + " is not documented (documented: " + fieldNames(op.path("responses"))
                                + ")",
                        body));
        JsonNode content = response.path("content");
        if (content.isMissingNode() || content.isEmpty()) {
            if (!body.isEmpty()) {
                throw failure(operation, status, "a body where the document says there is none", body);
            }
        } else {
            String type = contentType
                    .map(ContractValidator::essence)
                    .orElseThrow(() ->
                            failure(operation, status, "no Content-Type; documented: " + fieldNames(content), body));
            String documented = mediaType(content, type)
                    .orElseThrow(() -> failure(
                            operation,
                            status,
                            "Content-Type " + contentType.get() + " is not documented (documented: "
                                    + fieldNames(content) + ")",
                            body));
            if (isJson(type)) {
                validateJson(
                        operation, status, documented, content.path(documented).path("schema"), body);
            }
        }
        validated.add(operation + " " + status);
        count.incrementAndGet();
    }

    /** Every documented operation as {@code METHOD path} ({@code GET /agents/{id}}), sorted. */
    public Set<String> documentedOperations() {
        Set<String> out = new TreeSet<>();
        for (Map.Entry<String, JsonNode> path : document.path("paths").properties()) {
            for (String method : path.getValue()
                    .propertyStream()
                    .map(Map.Entry::getKey)
                    .filter(METHODS::contains)
                    .toList()) {
                out.add(method.toUpperCase(Locale.ROOT) + " " + path.getKey());
            }
        }
        return out;
    }

    /**
     * Every documented operation by the route it describes, as the route table names routes
     * ({@code METHOD pattern}): the operation's {@code x-warden-route} when it has one (a wildcard route documented
     * with a {@code {path}} parameter, a route of every method documented as {@code GET}), else its method and path.
     *
     * @throws AssertionError when two operations describe one route
     */
    public Map<String, JsonNode> operationsByRoute() {
        Map<String, JsonNode> out = new TreeMap<>();
        for (Map.Entry<String, JsonNode> path : document.path("paths").properties()) {
            for (Map.Entry<String, JsonNode> op : path.getValue().properties()) {
                if (!METHODS.contains(op.getKey())) {
                    continue;
                }
                String route = op.getValue().has("x-warden-route")
                        ? op.getValue().get("x-warden-route").asText()
                        : op.getKey().toUpperCase(Locale.ROOT) + " " + path.getKey();
                if (out.put(route, op.getValue()) != null) {
                    throw new AssertionError(route + " is documented twice");
                }
            }
        }
        return out;
    }

    /** How many responses passed. */
    public int validatedCount() {
        return count.get();
    }

    /** The operations and statuses that passed, as {@code METHOD path status}, sorted. */
    public Set<String> validatedResponses() {
        return new TreeSet<>(validated);
    }

    /**
     * Compiles the schema of every JSON media type of every documented response (so that a reference to a schema the
     * document lacks fails here rather than in the middle of a scenario).
     *
     * @return how many there are
     */
    public int compileEveryResponseSchema() {
        int compiled = 0;
        for (Map.Entry<String, JsonNode> path : document.path("paths").properties()) {
            for (Map.Entry<String, JsonNode> op : path.getValue().properties()) {
                for (Map.Entry<String, JsonNode> status :
                        op.getValue().path("responses").properties()) {
                    for (Map.Entry<String, JsonNode> type :
                            resolve(status.getValue()).path("content").properties()) {
                        if (isJson(type.getKey())) {
                            schema(
                                    op.getKey() + " " + path.getKey() + " " + status.getKey() + " " + type.getKey(),
                                    type.getValue().path("schema"));
                            compiled++;
                        }
                    }
                }
            }
        }
        return compiled;
    }

    private void validateJson(String operation, int status, String mediaType, JsonNode schemaNode, String body) {
        JsonNode json;
        try {
            json = Json.mapper().readTree(body);
        } catch (IOException e) {
            throw failure(operation, status, mediaType + " body is not JSON: " + e.getMessage(), body);
        }
        if (json.isMissingNode()) {
            throw failure(operation, status, "an empty body where " + mediaType + " is documented", body);
        }
        Set<ValidationMessage> messages =
                schema(operation + " " + status + " " + mediaType, schemaNode).validate(json);
        if (!messages.isEmpty()) {
            throw failure(
                    operation,
                    status,
                    "the body does not match the documented " + mediaType + " schema:\n  "
                            + messages.stream()
                                    .map(ValidationMessage::getMessage)
                                    .sorted()
                                    .collect(Collectors.joining("\n  ")),
                    body);
        }
    }

    private JsonSchema schema(String key, JsonNode schemaNode) {
        return schemas.computeIfAbsent(key, k -> {
            JsonNode rewritten = rewriteRefs(schemaNode.deepCopy());
            ObjectNode root =
                    rewritten instanceof ObjectNode o ? o : Json.mapper().createObjectNode();
            root.put("$schema", "https://json-schema.org/draft/2020-12/schema");
            root.set("$defs", defs);
            return factory.getSchema(root, config);
        });
    }

    /** The documented response for {@code status}: exact, else its class ({@code 4XX}), else {@code default}. */
    private Optional<JsonNode> documentedResponse(JsonNode responses, int status) {
        for (String key : new String[] {Integer.toString(status), (status / 100) + "XX", "default"}) {
            if (responses.has(key)) {
                return Optional.of(resolve(responses.get(key)));
            }
        }
        return Optional.empty();
    }

    /** A response object, its {@code $ref} to {@code #/components/responses/X} followed. */
    private JsonNode resolve(JsonNode response) {
        JsonNode ref = response.path("$ref");
        if (!ref.isTextual()) {
            return response;
        }
        String prefix = "#/components/responses/";
        if (!ref.textValue().startsWith(prefix)) {
            throw new AssertionError("unsupported response reference " + ref.textValue());
        }
        JsonNode target = document.path("components")
                .path("responses")
                .path(ref.textValue().substring(prefix.length()));
        if (target.isMissingNode()) {
            throw new AssertionError("the document has no response " + ref.textValue());
        }
        return target;
    }

    private static Optional<String> mediaType(JsonNode content, String essence) {
        return content.propertyStream()
                .map(Map.Entry::getKey)
                .filter(name -> essence(name).equals(essence))
                .findFirst();
    }

    /** {@code type/subtype} of a media type, lower case, without parameters. */
    private static String essence(String mediaType) {
        int semicolon = mediaType.indexOf(';');
        return (semicolon < 0 ? mediaType : mediaType.substring(0, semicolon))
                .strip()
                .toLowerCase(Locale.ROOT);
    }

    private static boolean isJson(String mediaType) {
        String type = essence(mediaType);
        return type.equals("application/json") || type.endsWith("+json");
    }

    /** {@code node} with every {@code #/components/schemas/X} reference made {@code #/$defs/X}, in place. */
    private static JsonNode rewriteRefs(JsonNode node) {
        if (node instanceof ObjectNode object) {
            JsonNode ref = object.get("$ref");
            if (ref != null && ref.isTextual() && ref.textValue().startsWith(COMPONENT_SCHEMAS)) {
                String name = ref.textValue().substring(COMPONENT_SCHEMAS.length());
                object.set("$ref", TextNode.valueOf("#/$defs/" + name));
            }
            object.forEach(ContractValidator::rewriteRefs);
        } else if (node.isArray()) {
            node.forEach(ContractValidator::rewriteRefs);
        }
        return node;
    }

    private static String fieldNames(JsonNode node) {
        Set<String> names = new TreeSet<>();
        node.fieldNames().forEachRemaining(names::add);
        return String.join(", ", names);
    }

    private static AssertionError failure(String operation, int status, String problem, String body) {
        String shown = body.length() > BODY_SHOWN ? body.substring(0, BODY_SHOWN) + "…" : body;
        return new AssertionError(operation + " answered " + status + ": " + problem + "\nbody: " + shown);
    }
}
