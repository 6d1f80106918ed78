package dev.warden.api.oauth;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.InvalidInputException;
import dev.warden.api.errors.OAuthException;
import dev.warden.api.errors.RetriableException;
import dev.warden.api.errors.WardenException;
import dev.warden.api.http.ErrorMapper;
import dev.warden.api.http.Responses;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/**
 * The error surface of the OAuth endpoints (token, registration, revocation, introspection): RFC 6749 section
 * 5.2 bodies {@code {"error", "error_description"}} as {@code application/json}, never cached, plus
 * {@code warden_error} (the failure class, e.g. {@code delegation_revoked}) when the error names one. An
 * {@link OAuthException} keeps its error and status; bad input found before the grant is judged (a form that is
 * not a form, a repeated parameter, a body too large) is {@code invalid_request}; a retriable failure is 503
 * {@code temporarily_unavailable} with {@code Retry-After}; anything else keeps its status as
 * {@code invalid_request} (4xx) or {@code server_error}.
 */
public final class OAuthErrors implements ErrorMapper {
    /** The extension member naming Warden's failure class (agent and delegation failures of token exchange). */
    public static final String REASON_MEMBER = "warden_error";

    /** The one instance. */
    public static final OAuthErrors JSON = new OAuthErrors();

    private OAuthErrors() {}

    @Override
    public void send(ServerRequest req, ServerResponse res, WardenException e) {
        if (res.isSent()) {
            return;
        }
        String error;
        int status;
        switch (e) {
            case OAuthException oauth -> {
                error = oauth.error();
                status = oauth.code().status();
                if (oauth.basicChallenge()) {
                    res.header(HeaderNames.WWW_AUTHENTICATE, "Basic realm=\"warden\", charset=\"UTF-8\"");
                }
            }
            case InvalidInputException invalid -> {
                error = ErrorCode.OAUTH_INVALID_REQUEST.code();
                status = 400;
            }
            case RetriableException retriable -> {
                error = "temporarily_unavailable";
                status = 503;
                res.header(
                        HeaderNames.RETRY_AFTER,
                        Long.toString(Math.max(1, retriable.retryAfter().toSeconds())));
            }
            default -> {
                status = e.code().status();
                error = status >= 500 ? "server_error" : ErrorCode.OAUTH_INVALID_REQUEST.code();
            }
        }
        ObjectNode body = Json.mapper().createObjectNode().put("error", error);
        body.put("error_description", description(e));
        if (e instanceof OAuthException oauth && oauth.reason().isPresent()) {
            body.put(REASON_MEMBER, oauth.reason().get().code());
        }
        res.header(HeaderNames.create("Pragma"), "no-cache");
        Responses.json(res, Status.create(status), body);
    }

    /** The detail plus the fields at fault, in the characters RFC 6749 allows (printable ASCII but " and \). */
    static String description(WardenException e) {
        String text = e.describe();
        StringBuilder clean = new StringBuilder(text.length());
        text.codePoints().forEach(c -> clean.append(c >= 0x20 && c <= 0x7e && c != '"' && c != '\\' ? (char) c : '?'));
        return clean.toString();
    }
}
