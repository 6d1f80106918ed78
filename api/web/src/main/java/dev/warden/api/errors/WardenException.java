package dev.warden.api.errors;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What a service throws when a request cannot be served: a stable {@link ErrorCode}, a detail for humans and,
 * for bad input, the fields at fault. It says what happened, never how to show it: each surface maps it (REST
 * to problem+json, OAuth endpoints to RFC 6749 errors, browser pages to an HTML page). The kind (the subclass)
 * is what a surface switches on; the code is what a client reads. Never carries a secret in its detail.
 */
public abstract sealed class WardenException extends RuntimeException
        permits NotFoundException,
                ConflictException,
                ForbiddenException,
                InvalidInputException,
                UnauthenticatedException,
                RetriableException,
                OAuthException {
    private static final long serialVersionUID = 1L;

    private final ErrorCode code;
    private final transient List<FieldError> errors;

    protected WardenException(ErrorCode code, String detail, List<FieldError> errors, int expectedStatus) {
        super(detail);
        if (code.status() != expectedStatus) {
            throw new IllegalArgumentException(
                    code + " is a " + code.status() + ", not a " + getClass().getSimpleName());
        }
        this.code = code;
        this.errors = List.copyOf(errors);
    }

    /** The stable code. */
    public ErrorCode code() {
        return code;
    }

    /** The fields at fault, empty unless the problem is about input. */
    public List<FieldError> errors() {
        return errors;
    }

    /**
     * One line for a human: the detail (else the code's title) and the fields at fault, each once (a single
     * field's detail already names it).
     */
    public String describe() {
        String detail = detail().orElse(code.title());
        if (errors.isEmpty()
                || errors.size() == 1
                        && detail.equals(errors.getFirst().field() + ": "
                                + errors.getFirst().message())) {
            return detail;
        }
        return detail + ": "
                + errors.stream().map(f -> f.field() + " " + f.message()).collect(Collectors.joining("; "));
    }

    /** The detail text, if any. */
    public Optional<String> detail() {
        return Optional.ofNullable(getMessage());
    }
}
