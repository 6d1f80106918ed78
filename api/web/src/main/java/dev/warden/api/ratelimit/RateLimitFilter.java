package dev.warden.api.ratelimit;

import io.helidon.http.Method;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Applies limiters to requests by method and path before routing (and before authentication, so public
 * endpoints such as sign-in are covered). A request matches a rule when the methods agree and its path
 * equals the rule's path or lies below it; the longest matching path wins. Rejected requests get the
 * SPEC's 429 and never reach a handler. Immutable and thread-safe.
 */
public final class RateLimitFilter implements Filter {
    private final List<Rule> rules;

    /** One limited path. */
    public record Rule(Method method, String path, RateLimiter limiter) {
        boolean matches(Method m, String requestPath) {
            return method.equals(m) && (requestPath.equals(path) || requestPath.startsWith(path + "/"));
        }
    }

    public RateLimitFilter(List<Rule> rules) {
        List<Rule> sorted = new ArrayList<>(rules);
        sorted.sort(Comparator.comparingInt((Rule r) -> r.path().length()).reversed());
        this.rules = List.copyOf(sorted);
    }

    /** The rules, longest path first. */
    public List<Rule> rules() {
        return rules;
    }

    /** The limiter applied to {@code method path}, if any. */
    public Optional<RateLimiter> limiterFor(Method method, String path) {
        String normalised = path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        for (Rule rule : rules) {
            if (rule.matches(method, normalised)) {
                return Optional.of(rule.limiter());
            }
        }
        return Optional.empty();
    }

    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        Optional<RateLimiter> limiter =
                limiterFor(req.prologue().method(), req.path().path());
        if (limiter.isPresent() && !limiter.get().admit(req, res)) {
            return;
        }
        chain.proceed();
    }
}
