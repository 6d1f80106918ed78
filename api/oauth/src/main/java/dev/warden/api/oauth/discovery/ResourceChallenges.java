package dev.warden.api.oauth.discovery;

import dev.warden.api.access.Scopes;
import dev.warden.api.auth.BearerChallenges;
import dev.warden.api.oauth.Issuer;
import java.util.Optional;

/**
 * The protected-resource side of Warden (MCP authorization; RFC 9728 section 5.1): {@code /mcp} is the MCP
 * resource, every other path the REST API resource. A refused request is answered with exactly one
 * {@code WWW-Authenticate: Bearer resource_metadata="<absolute URL of that resource's metadata>", scope="..."}
 * (plus {@code error} when a token was sent); the scope is the route's, else the resource's default.
 */
public final class ResourceChallenges implements BearerChallenges {
    private final Issuer issuer;

    public ResourceChallenges(Issuer issuer) {
        this.issuer = issuer;
    }

    @Override
    public Optional<String> resourceFor(String path) {
        // The audience tokens carry: the canonical spelling, whichever spelling the request used.
        return Optional.of(isMcp(path) ? issuer.canonicalMcpResource() : issuer.canonical());
    }

    @Override
    public String challenge(String path, Optional<String> scope, Optional<String> error) {
        String resource = isMcp(path) ? issuer.mcpResource() : issuer.restResource();
        StringBuilder value = new StringBuilder("Bearer ");
        error.ifPresent(e -> value.append("error=\"").append(e).append("\", "));
        value.append("resource_metadata=\"")
                .append(DiscoveryRoutes.metadataUrl(issuer, resource))
                .append('"');
        String wanted = scope.orElse(isMcp(path) ? Scopes.MCP : null);
        if (wanted != null) {
            value.append(", scope=\"").append(wanted).append('"');
        }
        return value.toString();
    }

    private static boolean isMcp(String path) {
        return path.equals("/mcp")
                || path.startsWith("/mcp/")
                        && !path.startsWith("/mcp/register")
                        && !path.startsWith("/mcp/token")
                        && !path.startsWith("/mcp/authorize");
    }
}
