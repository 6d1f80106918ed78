package dev.warden.api.http;

import dev.warden.api.errors.WardenException;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/**
 * How one surface shows a domain error: problem+json for the REST API ({@link Problems#REST}), an RFC 6749
 * error body for the OAuth endpoints, an HTML page for browser routes. Chosen per mount
 * ({@code WardenApi.Mount}); services never know which.
 */
@FunctionalInterface
public interface ErrorMapper {
    /** Writes {@code e} to {@code res}, unless a response was already sent. */
    void send(ServerRequest req, ServerResponse res, WardenException e);
}
