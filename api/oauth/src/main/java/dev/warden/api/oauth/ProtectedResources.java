package dev.warden.api.oauth;

import dev.warden.api.access.Scopes;
import dev.warden.api.errors.OAuthException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The protected resources tokens can be issued for (RFC 8707 resource indicators), each with its scopes:
 * Warden's REST API (the issuer URL), Warden's MCP endpoint ({@code <issuer>/mcp}), and the integrators' own
 * resources from configuration. A {@code resource} parameter must name one of them exactly; without one, a
 * token is for the REST API.
 */
public final class ProtectedResources {
    /** One resource. */
    public record Resource(String uri, List<String> scopes, List<String> defaultScopes, boolean warden) {
        public Resource {
            scopes = List.copyOf(scopes);
            defaultScopes = List.copyOf(defaultScopes);
        }
    }

    private final Issuer issuer;
    private final List<OAuthConfig.Resource> configured;

    public ProtectedResources(Issuer issuer, List<OAuthConfig.Resource> configured) {
        this.issuer = issuer;
        this.configured = List.copyOf(configured);
    }

    /** Warden's REST API: every OAuth scope; by default the read scopes. */
    public Resource rest() {
        return new Resource(
                issuer.canonical(),
                Scopes.oauthScopes(),
                Scopes.oauthScopes().stream().filter(s -> s.endsWith(":read")).toList(),
                true);
    }

    /** Warden's MCP endpoint: the {@code mcp} scope (by default) and the area scopes. */
    public Resource mcp() {
        return new Resource(issuer.canonicalMcpResource(), Scopes.oauthScopes(), List.of(Scopes.MCP), true);
    }

    /** Every resource. */
    public List<Resource> all() {
        List<Resource> all = new ArrayList<>(List.of(rest(), mcp()));
        configured.forEach(r -> all.add(new Resource(r.uri(), r.scopes(), r.scopes(), false)));
        return all;
    }

    /**
     * True when client {@code clientId} may learn about a token issued to {@code tokenClient} for {@code audience}
     * (RFC 7662 section 4): the token's own client, or a server of a configured resource the token is for (its
     * {@code introspection-clients}), which must be confidential: a public client proves only its id. Nobody
     * else, since anyone may register a confidential client.
     */
    public boolean mayIntrospect(String clientId, boolean confidential, String tokenClient, String audience) {
        return clientId.equals(tokenClient)
                || confidential
                        && configured.stream()
                                .anyMatch(r -> r.uri().equals(audience)
                                        && r.introspectionClients().contains(clientId));
    }

    /** Every scope any resource has (the metadata's {@code scopes_supported}). */
    public List<String> allScopes() {
        return all().stream().flatMap(r -> r.scopes().stream()).distinct().toList();
    }

    /** True when any resource has scope {@code scope}. */
    public boolean isScope(String scope) {
        return all().stream().anyMatch(r -> r.scopes().contains(scope));
    }

    /**
     * The resource named by {@code uri}, the REST API when absent.
     *
     * @throws OAuthException {@code invalid_target} for a resource this server does not know
     */
    public Resource resolve(Optional<String> uri) {
        if (uri.isEmpty()) {
            return rest();
        }
        // "http://host:port/" is how URL libraries (WHATWG URL) spell an issuer without a path: the same resource.
        // Any loopback spelling of a loopback issuer is the issuer (Issuer.canonicalize).
        String asked = issuer.canonicalize(uri.get());
        return all().stream()
                .filter(r -> r.uri().equals(asked) || (r.uri() + "/").equals(asked))
                .findFirst()
                .orElseThrow(() -> OAuthException.invalidTarget("resource is not a resource of this server"));
    }

    /**
     * The scope to grant for {@code requested} on {@code resource}: its default when none was asked for; each
     * asked-for scope must be one of the resource's ({@code invalid_scope} otherwise).
     */
    public static List<String> scopeFor(Resource resource, Optional<String> requested) {
        if (requested.isEmpty() || requested.get().isBlank()) {
            return resource.defaultScopes();
        }
        List<String> scopes = new ArrayList<>();
        for (String s : requested.get().split(" ")) {
            if (s.isEmpty()) {
                continue;
            }
            if (!resource.scopes().contains(s)) {
                throw OAuthException.invalidScope(
                        "scope " + (s.length() > 64 ? s.substring(0, 64) : s) + " is not a scope of " + resource.uri());
            }
            if (!scopes.contains(s)) {
                scopes.add(s);
            }
        }
        return scopes.isEmpty() ? resource.defaultScopes() : List.copyOf(scopes);
    }
}
