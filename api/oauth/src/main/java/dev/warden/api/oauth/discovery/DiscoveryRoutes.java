package dev.warden.api.oauth.discovery;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.NotFoundException;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.Responses;
import dev.warden.api.oauth.Issuer;
import dev.warden.api.oauth.ProtectedResources;
import dev.warden.api.oauth.authorize.AuthorizationRequest;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.net.URI;
import java.util.List;

/**
 * The discovery documents, mounted at {@code /.well-known} (public):
 *
 * <ul>
 *   <li>{@code /oauth-authorization-server} (RFC 8414), also path-inserted ({@code /oauth-authorization-server/<issuer
 *       path>}) when the issuer has a path;</li>
 *   <li>{@code /openid-configuration}: the same document, where OpenID-first clients (openid-client) look;</li>
 *   <li>{@code /oauth-protected-resource} (RFC 9728) for the REST API and {@code /oauth-protected-resource/<path>}
 *       for each of Warden's resources with a path (the MCP endpoint: {@code /oauth-protected-resource/mcp}).</li>
 * </ul>
 *
 * Every URL in them is built from the one issuer string, so clients comparing them byte for byte agree.
 */
public final class DiscoveryRoutes implements DeclaredService {
    static final String AS = "/oauth-authorization-server";
    static final String PR = "/oauth-protected-resource";
    static final String OIDC = "/openid-configuration";

    private final Issuer issuer;
    private final ProtectedResources resources;
    private final List<String> grantTypes;

    /**
     * @param grantTypes the grant types the token endpoint offers ({@code grant_types_supported})
     */
    public DiscoveryRoutes(Issuer issuer, ProtectedResources resources, List<String> grantTypes) {
        this.issuer = issuer;
        this.resources = resources;
        this.grantTypes = List.copyOf(grantTypes);
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get(AS, Access.open(), (req, res) -> send(res, authorizationServer()))
                .get(AS + "/*", Access.open(), this::pathInsertedAuthorizationServer)
                // openid-client's discovery() asks for the OpenID form by default: the same document
                .get(OIDC, Access.open(), (req, res) -> send(res, authorizationServer()))
                .get(PR, Access.open(), (req, res) -> protectedResource(res, ""))
                .get(
                        PR + "/*",
                        Access.open(),
                        (req, res) -> protectedResource(
                                res, req.prologue().uriPath().path().substring(("/.well-known" + PR).length())));
    }

    /** The RFC 9728 document URL of the resource {@code resourceUri} (the challenge's {@code resource_metadata}). */
    public static String metadataUrl(Issuer issuer, String resourceUri) {
        URI uri = URI.create(resourceUri);
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        URI base = URI.create(issuer.value());
        return base.getScheme() + "://" + base.getRawAuthority() + "/.well-known" + PR + (path.equals("/") ? "" : path);
    }

    private void pathInsertedAuthorizationServer(ServerRequest req, ServerResponse res) {
        String suffix = req.prologue().uriPath().path().substring(("/.well-known" + AS).length());
        String issuerPath = URI.create(issuer.value()).getRawPath();
        if (issuerPath == null || issuerPath.isEmpty() || !issuerPath.equals(suffix)) {
            throw new NotFoundException(ErrorCode.NOT_FOUND, "no authorization server metadata for " + suffix);
        }
        send(res, authorizationServer());
    }

    ObjectNode authorizationServer() {
        ObjectNode doc = Json.mapper().createObjectNode();
        doc.put("issuer", issuer.value());
        doc.put("authorization_endpoint", issuer.url("/mcp/authorize"));
        doc.put("token_endpoint", issuer.url("/mcp/token"));
        doc.put("registration_endpoint", issuer.url("/mcp/register"));
        doc.put("revocation_endpoint", issuer.url("/oauth/revoke"));
        doc.put("introspection_endpoint", issuer.url("/oauth/introspect"));
        doc.put("device_authorization_endpoint", issuer.url("/auth/device/code"));
        // OpenID CIBA, poll mode only: an agent bound as a client asks its owner (docs/approvals.md)
        doc.put("backchannel_authentication_endpoint", issuer.url("/oauth/bc-authorize"));
        doc.putArray("backchannel_token_delivery_modes_supported").add("poll");
        doc.put("backchannel_user_code_parameter_supported", false);
        doc.put("jwks_uri", issuer.url("/oauth/jwks"));
        array(doc, "scopes_supported", resources.allScopes());
        array(doc, "response_types_supported", List.of("code"));
        array(doc, "response_modes_supported", List.of("query"));
        array(doc, "grant_types_supported", grantTypes);
        List<String> methods = List.of("none", "client_secret_basic", "client_secret_post");
        array(doc, "token_endpoint_auth_methods_supported", methods);
        array(doc, "revocation_endpoint_auth_methods_supported", methods);
        array(doc, "introspection_endpoint_auth_methods_supported", methods);
        array(doc, "code_challenge_methods_supported", List.of("S256"));
        // RFC 9470's step-up: the acr_values that ask for a second factor (max_age is honoured too).
        array(doc, "acr_values_supported", AuthorizationRequest.SECOND_FACTOR_ACR);
        doc.put("authorization_response_iss_parameter_supported", true);
        doc.put("client_id_metadata_document_supported", true);
        doc.put("service_documentation", "https://github.com/warden-dev/warden/blob/main/docs/oauth.md");
        return doc;
    }

    private void protectedResource(ServerResponse res, String path) {
        ProtectedResources.Resource resource = resources.all().stream()
                .filter(ProtectedResources.Resource::warden)
                .filter(r -> {
                    String p = URI.create(r.uri()).getRawPath();
                    return (p == null ? "" : p).equals(path);
                })
                .findFirst()
                .orElseThrow(() -> new NotFoundException(ErrorCode.NOT_FOUND, "no protected resource at " + path));
        ObjectNode doc = Json.mapper().createObjectNode();
        doc.put("resource", issuer.outward(resource.uri()));
        array(doc, "authorization_servers", List.of(issuer.value()));
        array(doc, "scopes_supported", resource.scopes());
        array(doc, "bearer_methods_supported", List.of("header"));
        doc.put("resource_name", path.equals("/mcp") ? "Warden MCP server" : "Warden API");
        send(res, doc);
    }

    private static void send(ServerResponse res, ObjectNode doc) {
        Responses.json(res, Status.OK_200, doc, "public, max-age=300");
    }

    private static void array(ObjectNode doc, String name, List<String> values) {
        ArrayNode array = doc.putArray(name);
        values.forEach(array::add);
    }
}
