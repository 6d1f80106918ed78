package dev.warden.api.oauth;

import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.http.Status;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import java.util.List;

/**
 * CORS for browser-based OAuth and MCP clients on the discovery documents, registration, token, revocation,
 * JWK set and {@code /mcp}: any origin, never with credentials (these endpoints take no cookies, so a page can
 * do nothing a script could not), {@code WWW-Authenticate} and {@code Mcp-Session-Id} exposed, and preflights
 * answered here, before authentication (a preflight carries no token). Other paths get no CORS headers.
 */
public final class Cors implements Filter {
    private static final List<String> EXACT = List.of(
            "/mcp", "/mcp/register", "/mcp/token", "/oauth/register", "/oauth/token", "/oauth/revoke", "/oauth/jwks");
    private static final String WELL_KNOWN = "/.well-known/";

    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        String path = req.path().path();
        if (!applies(path)) {
            chain.proceed();
            return;
        }
        res.header(HeaderNames.ACCESS_CONTROL_ALLOW_ORIGIN, "*");
        res.header(HeaderNames.ACCESS_CONTROL_EXPOSE_HEADERS, "WWW-Authenticate, Mcp-Session-Id, Retry-After");
        if (req.prologue().method() == Method.OPTIONS
                && req.headers().contains(HeaderNames.ACCESS_CONTROL_REQUEST_METHOD)) {
            res.header(HeaderNames.ACCESS_CONTROL_ALLOW_METHODS, "GET, POST, DELETE, OPTIONS");
            res.header(
                    HeaderNames.ACCESS_CONTROL_ALLOW_HEADERS,
                    "Authorization, Content-Type, MCP-Protocol-Version, Mcp-Session-Id, Mcp-Method, Mcp-Name, Last-Event-ID");
            res.header(HeaderNames.ACCESS_CONTROL_MAX_AGE, "600");
            res.status(Status.NO_CONTENT_204).send();
            return;
        }
        chain.proceed();
    }

    static boolean applies(String path) {
        return EXACT.contains(path) || path.startsWith(WELL_KNOWN);
    }
}
