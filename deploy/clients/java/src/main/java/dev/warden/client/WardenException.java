package dev.warden.client;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Warden answered with an error (docs/errors.md): the HTTP status and what the problem body says. {@link #code()}
 * is the stable machine-readable code ({@code validation_invalid}, {@code agent_not_found}, {@code invalid_grant}
 * ...); {@link #detail()} is prose for people; {@link #requestId()} matches the server's log line. A failure to
 * reach the server at all is status 0 with code {@code unreachable}.
 */
public final class WardenException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** One field a validation error names. */
    public record FieldError(String field, String message) {}

    private final int status;
    private final String code;
    private final String detail;
    private final transient List<FieldError> errors;
    private final String requestId;
    private final transient Optional<Duration> retryAfter;

    public WardenException(
            int status,
            String code,
            String detail,
            List<FieldError> errors,
            String requestId,
            Optional<Duration> retryAfter,
            Throwable cause) {
        super(message(status, code, detail, errors), cause);
        this.status = status;
        this.code = code;
        this.detail = detail;
        this.errors = List.copyOf(errors);
        this.requestId = requestId;
        this.retryAfter = retryAfter;
    }

    /** Could not reach the server (connection refused, timeout, TLS). */
    static WardenException unreachable(String what, Throwable cause) {
        return new WardenException(0, "unreachable", what + ": " + cause, List.of(), "", Optional.empty(), cause);
    }

    private static String message(int status, String code, String detail, List<FieldError> errors) {
        StringBuilder b = new StringBuilder();
        if (status > 0) {
            b.append(status).append(' ');
        }
        b.append(code);
        if (!detail.isEmpty()) {
            b.append(": ").append(detail);
        }
        for (FieldError e : errors) {
            b.append("\n  ").append(e.field()).append(": ").append(e.message());
        }
        return b.toString();
    }

    /** The HTTP status, or 0 when the server was not reached. */
    public int status() {
        return status;
    }

    /** The problem's {@code code} (or the OAuth {@code error}). */
    public String code() {
        return code;
    }

    /** The problem's {@code detail} (or the OAuth {@code error_description}); may be empty. */
    public String detail() {
        return detail;
    }

    /** The fields a validation error names; empty otherwise. */
    public List<FieldError> errors() {
        return errors;
    }

    /** The request id the server logged this answer under ({@code X-Request-Id}); empty when unknown. */
    public String requestId() {
        return requestId;
    }

    /** How long the server asked to wait ({@code Retry-After} of a 429 or 503). */
    public Optional<Duration> retryAfter() {
        return retryAfter;
    }
}
