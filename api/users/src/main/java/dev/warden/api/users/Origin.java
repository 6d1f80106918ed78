package dev.warden.api.users;

import dev.warden.api.ratelimit.ClientIp;
import dev.warden.pipeline.contract.CleanText;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.ServerRequest;
import java.util.Optional;

/**
 * Where a sign-in comes from: the client IP (as the rate limiter sees it) and the User-Agent as sent, cleaned and at
 * most {@link #MAX_USER_AGENT} characters. Kept with the session, for the user's list of their sessions.
 */
public record Origin(String ip, Optional<String> userAgent) {
    /** The longest User-Agent kept. */
    public static final int MAX_USER_AGENT = 256;

    public Origin {
        userAgent = userAgent
                .map(CleanText::scrub)
                .map(String::strip)
                .filter(ua -> !ua.isEmpty())
                .map(ua -> ua.length() > MAX_USER_AGENT ? ua.substring(0, MAX_USER_AGENT) : ua);
    }

    /** The origin of {@code req}. */
    public static Origin of(ServerRequest req, ClientIp clientIp) {
        return new Origin(clientIp.text(req), req.headers().first(HeaderNames.USER_AGENT));
    }
}
