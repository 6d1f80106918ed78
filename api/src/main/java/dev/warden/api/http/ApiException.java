package dev.warden.api.http;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A failure to be answered as an {@code application/problem+json} response. Thrown anywhere below a
 * route; the routing's error handler renders it. Never carries secrets in its message.
 */
public class ApiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ErrorCode code;
    private final transient List<FieldError> errors;
    private final transient Map<String, String> headers;

    public ApiException(ErrorCode code, String detail) {
        this(code, detail, List.of(), Map.of());
    }

    public ApiException(ErrorCode code, String detail, List<FieldError> errors, Map<String, String> headers) {
        super(detail);
        this.code = code;
        this.errors = List.copyOf(errors);
        this.headers = Map.copyOf(headers);
    }

    /** A 400 naming the offending fields. */
    public static ApiException invalid(List<FieldError> errors) {
        String detail = errors.size() == 1
                ? errors.getFirst().field() + ": " + errors.getFirst().message()
                : errors.size() + " fields are invalid";
        return new ApiException(ErrorCode.VALIDATION_INVALID, detail, errors, Map.of());
    }

    /** A 400 naming one offending field. */
    public static ApiException invalid(String field, String message) {
        return invalid(List.of(new FieldError(field, message)));
    }

    public static ApiException notFound(ErrorCode code, String detail) {
        return new ApiException(code, detail);
    }

    public static ApiException forbidden(String detail) {
        return new ApiException(ErrorCode.FORBIDDEN, detail);
    }

    public ErrorCode code() {
        return code;
    }

    /** The field-level errors, empty unless the problem is about input. */
    public List<FieldError> errors() {
        return errors;
    }

    /** Extra response headers, e.g. {@code WWW-Authenticate} or {@code Retry-After}. */
    public Map<String, String> headers() {
        return headers;
    }

    /** The detail text, if any. */
    public Optional<String> detail() {
        return Optional.ofNullable(getMessage());
    }
}
