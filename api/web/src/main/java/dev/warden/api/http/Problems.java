package dev.warden.api.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.FieldError;
import dev.warden.api.errors.InsufficientScopeException;
import dev.warden.api.errors.RetriableException;
import dev.warden.api.errors.UnauthenticatedException;
import dev.warden.api.errors.WardenException;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The REST surface's {@link ErrorMapper}: renders domain errors as RFC 9457 problem details with Warden's extra
 * {@code code} member, {@code {"type","title","status","code","detail","instance","errors"?}}, and the headers
 * their kind calls for (a challenge the caller already set, with the resource metadata, is kept): {@code Retry-After} for a retriable failure, {@code WWW-Authenticate: Bearer} (RFC 6750
 * section 3) when a bearer token is missing, invalid or lacks a scope, {@code Accept-Post} for a body of the
 * wrong type.
 */
public final class Problems implements ErrorMapper {
    /** The media type of every error body except the SPEC's 429 and OAuth's RFC 6749 errors. */
    public static final String MEDIA_TYPE = "application/problem+json";
    /** The mapper of the REST API. */
    public static final Problems REST = new Problems();

    private static final Logger LOG = Logger.getLogger(Problems.class.getName());

    private Problems() {}

    @Override
    public void send(ServerRequest req, ServerResponse res, WardenException e) {
        Problems.sendProblem(req, res, e);
    }

    /** Error handler of last resort: logs the cause and answers a 500 without leaking it. */
    public static void handleUnexpected(ServerRequest req, ServerResponse res, Throwable e) {
        LOG.log(
                Level.SEVERE,
                "unhandled error on " + req.prologue().method().text() + " "
                        + req.path().path() + " (request "
                        + RequestIds.of(req).orElse("without an id") + ")",
                e);
        write(req, res, ErrorCode.INTERNAL, Optional.of("an unexpected error occurred; it has been logged"), List.of());
    }

    /**
     * Answers 405 {@code method_not_allowed} for a path served with other methods, naming them; the caller sets
     * {@code Allow}. Written by the surface itself: no service throws it.
     */
    public static void methodNotAllowed(ServerRequest req, ServerResponse res, String allowed) {
        write(
                req,
                res,
                ErrorCode.METHOD_NOT_ALLOWED,
                Optional.of(req.prologue().method().text() + " is not served here; this path takes " + allowed),
                List.of());
    }

    /** Answers 406 {@code not_acceptable}, saying what the resource can answer. Written by the surface itself. */
    public static void notAcceptable(ServerRequest req, ServerResponse res, String detail) {
        write(req, res, ErrorCode.NOT_ACCEPTABLE, Optional.of(detail), List.of());
    }

    /** Writes {@code e} to {@code res} as a problem, with the headers its kind calls for. */
    public static void sendProblem(ServerRequest req, ServerResponse res, WardenException e) {
        if (res.isSent()) {
            return;
        }
        if (e instanceof RetriableException retriable) {
            res.header(
                    HeaderNames.RETRY_AFTER,
                    Long.toString(Math.max(1, retriable.retryAfter().toSeconds())));
        }
        boolean challenged = res.headers().contains(HeaderNames.WWW_AUTHENTICATE);
        if (e instanceof UnauthenticatedException unauthenticated && !challenged) {
            unauthenticated
                    .challenge()
                    .ifPresent(c -> res.header(
                            HeaderNames.WWW_AUTHENTICATE,
                            c == UnauthenticatedException.Challenge.TOKEN_REQUIRED
                                    ? "Bearer"
                                    : "Bearer error=\"invalid_token\""));
        }
        if (e instanceof InsufficientScopeException scope && !challenged) {
            res.header(
                    HeaderNames.WWW_AUTHENTICATE,
                    "Bearer error=\"insufficient_scope\", scope=\"" + scope.scope() + "\"");
        }
        if (e.code() == ErrorCode.UNSUPPORTED_MEDIA_TYPE) {
            res.header(HeaderNames.create("Accept-Post"), "application/json");
        }
        Optional<UnauthenticatedException.SecondFactor> secondFactor =
                e instanceof UnauthenticatedException u ? u.secondFactor() : Optional.empty();
        write(req, res, e.code(), e.detail(), e.errors(), secondFactor);
    }

    private static void write(
            ServerRequest req, ServerResponse res, ErrorCode code, Optional<String> detail, List<FieldError> errors) {
        write(req, res, code, detail, errors, Optional.empty());
    }

    private static void write(
            ServerRequest req,
            ServerResponse res,
            ErrorCode code,
            Optional<String> detail,
            List<FieldError> errors,
            Optional<UnauthenticatedException.SecondFactor> secondFactor) {
        if (res.isSent()) {
            return;
        }
        res.status(Status.create(code.status()));
        res.header(HeaderNames.CONTENT_TYPE, MEDIA_TYPE);
        if (secondFactor.isPresent()) {
            res.header(HeaderNames.CACHE_CONTROL, "no-store");
        }
        byte[] problem = body(code, detail, errors, req.prologue().uriPath().path(), secondFactor, RequestIds.of(req));
        // A HEAD answer has no body (RFC 9110 9.3.2); one would be read as the start of the next answer
        (req.prologue().method().equals(io.helidon.http.Method.HEAD) ? new HeadResponse(res) : res).send(problem);
    }

    private static byte[] body(
            ErrorCode code,
            Optional<String> detail,
            List<FieldError> errors,
            String instance,
            Optional<UnauthenticatedException.SecondFactor> secondFactor,
            Optional<String> requestId) {
        ObjectNode node = Json.mapper()
                .createObjectNode()
                .put("type", "urn:warden:problem:" + code.code())
                .put("title", code.title())
                .put("status", code.status())
                .put("code", code.code());
        detail.ifPresent(d -> node.put("detail", d));
        node.put("instance", instance);
        if (!errors.isEmpty()) {
            ArrayNode list = node.putArray("errors");
            errors.forEach(fe -> list.addObject().put("field", fe.field()).put("message", fe.message()));
        }
        secondFactor.ifPresent(
                f -> node.put("challenge", f.challenge()).put("challengeExpiresAt", Json.timestamp(f.expiresAt())));
        requestId.ifPresent(id -> node.put("requestId", id));
        try {
            return Json.mapper().writeValueAsBytes(node);
        } catch (JsonProcessingException ex) {
            return ("{\"status\":" + code.status() + "}").getBytes(StandardCharsets.UTF_8);
        }
    }
}
