package dev.warden.api.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.warden.api.access.Access;
import dev.warden.api.access.ReviewedRoutes;
import dev.warden.api.access.RouteTable;
import dev.warden.api.agents.AgentJson;
import dev.warden.api.delegations.DelegationJson;
import dev.warden.api.ratelimit.Decision;
import dev.warden.api.ratelimit.RateLimit;
import dev.warden.api.ratelimit.RateLimitResponses;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.AgentStatus;
import dev.warden.authorizer.domain.AgentType;
import dev.warden.authorizer.domain.Budget;
import dev.warden.authorizer.domain.BudgetPeriod;
import dev.warden.authorizer.domain.Constraints;
import dev.warden.authorizer.domain.Delegation;
import dev.warden.authorizer.domain.DelegationId;
import dev.warden.authorizer.domain.Permission;
import dev.warden.authorizer.domain.TenantId;
import dev.warden.authorizer.domain.UserId;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditEntryCodec;
import dev.warden.pipeline.contract.AuditResult;
import dev.warden.pipeline.contract.Json;
import dev.warden.testing.ContractValidator;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI document served at {@code /openapi.json} against the code, without a server: it is a valid OpenAPI 3.1
 * document; it describes exactly the routes of {@link ReviewedRoutes}, each with the access reviewed there; every
 * operation can succeed and every operation that needs a token documents its 401; and resources as the code renders
 * them match their schemas. {@code OpenApiContractIT} holds real responses of a running platform to it.
 */
class OpenApiDocumentTest {
    private static final Set<String> METHODS =
            Set.of("get", "put", "post", "delete", "patch", "head", "options", "trace");
    private static final Pattern PATH_PARAMETER = Pattern.compile("\\{([^}]+)}");
    private static final String TEXT = classpathText();
    private static final JsonNode DOCUMENT = ContractValidator.classpathDocument();
    private static final Instant NOW = Instant.parse("2030-01-02T03:04:05.678Z");

    @Test
    void theDocumentIsOpenApi31AndParsesWithoutAnyMessage() {
        ParseOptions options = new ParseOptions();
        options.setResolve(true);
        SwaggerParseResult result = new OpenAPIV3Parser().readContents(TEXT, null, options);

        assertThat(result.getMessages()).isEmpty();
        assertThat(result.getOpenAPI()).isNotNull();
        assertThat(result.getOpenAPI().getOpenapi()).isEqualTo("3.1.0");
        assertThat(result.getOpenAPI().getInfo().getTitle()).isEqualTo("Warden");
        assertThat(result.getOpenAPI().getServers())
                .singleElement()
                .satisfies(server -> assertThat(server.getUrl()).isEqualTo("/"));
    }

    @Test
    void itDocumentsEveryReviewedRouteAndNothingElse() {
        Set<String> documented = operations().keySet();
        Set<String> reviewed = ReviewedRoutes.EXPECTED.keySet();

        assertThat(difference(reviewed, documented))
                .as("reviewed routes the document lacks")
                .isEmpty();
        assertThat(difference(documented, reviewed))
                .as("documented operations that are not reviewed routes")
                .isEmpty();
    }

    @Test
    void eachOperationStatesTheAccessItsRouteWasReviewedWith() {
        List<String> wrong = new ArrayList<>();
        operations().forEach((route, op) -> {
            String stated = op.path("x-warden-access").asText("(none)");
            Access reviewed = ReviewedRoutes.EXPECTED.get(route);
            if (reviewed != null && !stated.equals(wireForm(reviewed))) {
                wrong.add(route + ": documented " + stated + ", reviewed " + wireForm(reviewed));
            }
        });

        assertThat(wrong).isEmpty();
    }

    @Test
    void everyOperationCanSucceedExceptThoseDeclaredNeverTo() {
        List<String> without = new ArrayList<>();
        List<String> neverSucceeding = new ArrayList<>();
        operations().forEach((route, op) -> {
            boolean succeeds = statuses(op).stream().anyMatch(s -> s.startsWith("2") || s.startsWith("3"));
            if (op.path("x-warden-never-succeeds").asBoolean()) {
                neverSucceeding.add(route);
                assertThat(succeeds)
                        .as(route + " is declared never to succeed but documents a success")
                        .isFalse();
            } else if (!succeeds) {
                without.add(route);
            }
        });

        assertThat(without).as("operations without a 2xx or 3xx response").isEmpty();
        assertThat(neverSucceeding)
                .as("the stateless MCP endpoint answers GET and DELETE with 405 only")
                .containsExactlyInAnyOrder("GET /mcp", "DELETE /mcp");
    }

    @Test
    void everyOperationThatNeedsATokenDocuments401AndDemandsACredential() {
        List<String> wrong = new ArrayList<>();
        operations().forEach((route, op) -> {
            // A route nobody reviewed is judged as the filter judges it: it needs a caller with every scope.
            Access access = ReviewedRoutes.EXPECTED.getOrDefault(route, RouteTable.UNKNOWN_ROUTE);
            List<JsonNode> security = new ArrayList<>();
            op.path("security").forEach(security::add);
            boolean anonymousAllowed = security.isEmpty() || security.stream().anyMatch(JsonNode::isEmpty);
            if (access.needsNoToken()) {
                if (access instanceof Access.Open && !anonymousAllowed) {
                    wrong.add(route + ": public, but its security requires a credential");
                }
                if (access instanceof Access.SelfAuthenticating && (security.isEmpty() || anonymousAllowed)) {
                    wrong.add(route + ": authenticates its callers, but its security names no credential");
                }
            } else {
                if (!statuses(op).contains("401")) {
                    wrong.add(route + ": needs a token but documents no 401");
                }
                if (anonymousAllowed) {
                    wrong.add(route + ": needs a token but its security allows anonymous calls");
                }
            }
        });

        assertThat(wrong).isEmpty();
    }

    @Test
    void everyPathParameterIsDeclaredAndEveryOperationIdIsUnique() {
        List<String> wrong = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        forEachOperation((path, method, op) -> {
            Set<String> declared = new TreeSet<>();
            for (JsonNode parameter : op.path("parameters")) {
                JsonNode resolved = resolveParameter(parameter);
                if (resolved.path("in").asText().equals("path")) {
                    declared.add(resolved.path("name").asText());
                }
            }
            Set<String> inPath = new TreeSet<>();
            Matcher m = PATH_PARAMETER.matcher(path);
            while (m.find()) {
                inPath.add(m.group(1));
            }
            if (!declared.equals(inPath)) {
                wrong.add(method + " " + path + ": path parameters " + declared + ", template " + inPath);
            }
            if (!ids.add(op.path("operationId").asText())) {
                wrong.add(method + " " + path + ": operationId "
                        + op.path("operationId").asText() + " is not unique");
            }
        });

        assertThat(wrong).isEmpty();
    }

    @Test
    void everyJsonResponseSchemaCompiles() {
        assertThat(new ContractValidator(DOCUMENT).compileEveryResponseSchema()).isGreaterThan(100);
    }

    @Test
    void resourcesAsTheCodeRendersThemMatchTheirSchemas() {
        ContractValidator contract = new ContractValidator(DOCUMENT);
        Agent full = new Agent(
                AgentId.of("agt_full"),
                UserId.of("alice"),
                Optional.of(TenantId.of("org_acme")),
                "triage-bot",
                AgentType.SERVICE,
                AgentStatus.ACTIVE,
                List.of(
                        new Permission("mcp:github:*", List.of("read", "write"), Constraints.maxCallsPerHour(100)),
                        new Permission("*", List.of("read"), Constraints.NONE)),
                Optional.of(NOW.plus(Duration.ofDays(30))),
                Map.of("team", "platform", "nested", Map.of("n", 1.5)),
                NOW,
                NOW,
                Optional.of(new Budget(new BigDecimal("25.50"), BudgetPeriod.DAY)));
        Agent bare = new Agent(
                AgentId.of("agt_bare"),
                UserId.of("bob"),
                Optional.empty(),
                "bare",
                AgentType.AUTONOMOUS,
                AgentStatus.SUSPENDED,
                List.of(),
                Optional.empty(),
                Map.of(),
                NOW,
                NOW,
                Optional.empty());
        Delegation delegation = new Delegation(
                DelegationId.of("dlg_one"),
                full.id(),
                bare.id(),
                List.of(new Permission("mcp:github:issues:*", List.of("read"), Constraints.maxCallsPerHour(10))),
                1,
                5,
                List.of(),
                Optional.empty(),
                NOW,
                Optional.empty());
        Map<String, Object> arguments = new LinkedHashMap<>();
        arguments.put("password", "[REDACTED]");
        arguments.put("n", 42);
        ArrayNode audit = Json.mapper()
                .createArrayNode()
                .add(AuditEntryCodec.toJson(new AuditEntry(
                        "aud_1",
                        full.id().value(),
                        Optional.empty(),
                        "admin",
                        "read",
                        "mcp:github:issues:42",
                        arguments,
                        AuditResult.DENIED,
                        Optional.of("NO_MATCHING_PERMISSION"),
                        1.25,
                        0,
                        NOW,
                        Optional.of("10.0.0.1"),
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty())));

        contract.check(
                "POST",
                "/agents",
                201,
                Optional.of("application/json"),
                AgentJson.render(full, NOW, Optional.of("wdn_agt_secret")).toString());
        contract.check(
                "GET",
                "/agents/{id}",
                200,
                Optional.of("application/json"),
                AgentJson.render(bare, NOW, Optional.empty()).toString());
        contract.check(
                "POST",
                "/delegations",
                201,
                Optional.of("application/json"),
                DelegationJson.render(delegation).toString());
        contract.check("GET", "/audit", 200, Optional.of("application/json"), audit.toString());
        contract.check(
                "POST",
                "/auth/sign-up",
                429,
                Optional.of("application/json"),
                RateLimitResponses.body(Decision.reject(RateLimit.perMinute(5), Duration.ofSeconds(42)))
                        .toString());

        assertThat(contract.validatedCount()).isEqualTo(5);
    }

    @Test
    void theValidatorRefusesUndocumentedStatusesTypesAndBodies() {
        ContractValidator contract = new ContractValidator(DOCUMENT);
        String problem = """
                {"type":"urn:warden:problem:agent_not_found","title":"Agent not found","status":404,
                 "code":"agent_not_found","detail":"no such agent","instance":"/agents/agt_x"}""";
        contract.check("GET", "/agents/{id}", 404, Optional.of("application/problem+json"), problem);
        contract.check("DELETE", "/agents/{id}", 204, Optional.empty(), "");

        assertThatThrownBy(() ->
                        contract.check("GET", "/agents/{id}", 418, Optional.of("application/problem+json"), problem))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("status 418 is not documented");
        assertThatThrownBy(() -> contract.check("GET", "/agents/{id}", 404, Optional.of("text/html"), problem))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("Content-Type text/html is not documented");
        assertThatThrownBy(() -> contract.check(
                        "GET",
                        "/agents/{id}",
                        404,
                        Optional.of("application/problem+json"),
                        problem.replace("\"code\":\"agent_not_found\",", "\"extra\":true,")))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("code")
                .hasMessageContaining("extra");
        assertThatThrownBy(() -> contract.check("DELETE", "/agents/{id}", 204, Optional.empty(), "{}"))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("a body where the document says there is none");
        assertThatThrownBy(() -> contract.check("GET", "/agents/{id}/nothing", 200, Optional.empty(), ""))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("is not documented");
        assertThat(contract.validatedResponses()).containsExactly("DELETE /agents/{id} 204", "GET /agents/{id} 404");
    }

    /** The documented operations by the route they describe. */
    private static Map<String, JsonNode> operations() {
        return new ContractValidator(DOCUMENT).operationsByRoute();
    }

    /** How a declared {@link Access} is written in an operation's {@code x-warden-access}. */
    private static String wireForm(Access access) {
        return switch (access) {
            case Access.Open o -> "open";
            case Access.SelfAuthenticating s -> "self-authenticating";
            case Access.Caller c -> c.scope().map(scope -> "scope:" + scope).orElse("any-caller");
            case Access.Administrator a -> "administrator";
            case Access.Session s -> "session";
        };
    }

    private interface OperationVisitor {
        void visit(String path, String method, JsonNode operation);
    }

    private static void forEachOperation(OperationVisitor visitor) {
        for (Map.Entry<String, JsonNode> path : DOCUMENT.path("paths").properties()) {
            for (Map.Entry<String, JsonNode> op : path.getValue().properties()) {
                if (METHODS.contains(op.getKey())) {
                    visitor.visit(path.getKey(), op.getKey().toUpperCase(Locale.ROOT), op.getValue());
                }
            }
        }
    }

    private static Set<String> statuses(JsonNode operation) {
        Set<String> out = new TreeSet<>();
        operation.path("responses").fieldNames().forEachRemaining(out::add);
        return out;
    }

    private static JsonNode resolveParameter(JsonNode parameter) {
        String ref = parameter.path("$ref").asText("");
        String prefix = "#/components/parameters/";
        return ref.startsWith(prefix)
                ? DOCUMENT.path("components").path("parameters").path(ref.substring(prefix.length()))
                : parameter;
    }

    private static Set<String> difference(Set<String> a, Set<String> b) {
        Set<String> out = new TreeSet<>(a);
        out.removeAll(b);
        return out;
    }

    private static String classpathText() {
        try (InputStream in = OpenApiDocumentTest.class.getClassLoader().getResourceAsStream(OpenApiRoutes.RESOURCE)) {
            assertThat(in).as(OpenApiRoutes.RESOURCE + " on the classpath").isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
