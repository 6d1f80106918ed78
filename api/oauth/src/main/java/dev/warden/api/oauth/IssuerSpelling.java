package dev.warden.api.oauth;

import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;

/**
 * Serves each request under the issuer as its {@code Host} spelled it, when the issuer is a loopback one and the
 * host one of its spellings ({@link Issuer#spelledAs}); every other request, and every request of a configured
 * issuer, under the canonical URL. Installed before every other filter.
 */
public final class IssuerSpelling implements Filter {
    private final Issuer issuer;

    public IssuerSpelling(Issuer issuer) {
        this.issuer = issuer;
    }

    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        issuer.serve(issuer.spelledAs(req.headers().first(HeaderNames.HOST).orElse(null)), chain::proceed);
    }
}
