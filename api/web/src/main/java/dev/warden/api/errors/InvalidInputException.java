package dev.warden.api.errors;

import java.util.List;

/**
 * The request itself is wrong: fields that fail their rules ({@link ErrorCode#VALIDATION_INVALID}, naming
 * each), a body that is not JSON, too large or of another type, or a request the rules forbid outright
 * (delegating to oneself). Changing the request is the only fix.
 */
public final class InvalidInputException extends WardenException {
    private static final long serialVersionUID = 1L;

    /** {@link ErrorCode#VALIDATION_INVALID} naming every field at fault. */
    public InvalidInputException(List<FieldError> errors) {
        super(ErrorCode.VALIDATION_INVALID, summary(errors), errors, ErrorCode.VALIDATION_INVALID.status());
    }

    /** Another code of bad input, with a detail. */
    public InvalidInputException(ErrorCode code, String detail) {
        this(code, detail, List.of());
    }

    /** Another code of bad input, with a detail and the fields at fault. */
    public InvalidInputException(ErrorCode code, String detail, List<FieldError> errors) {
        super(code, detail, errors, code.status());
        if (code.status() != 400 && code.status() != 413 && code.status() != 415) {
            throw new IllegalArgumentException(code + " is not about input");
        }
    }

    /** {@link ErrorCode#VALIDATION_INVALID} naming one field. */
    public static InvalidInputException field(String field, String message) {
        return new InvalidInputException(List.of(new FieldError(field, message)));
    }

    private static String summary(List<FieldError> errors) {
        return errors.size() == 1
                ? errors.getFirst().field() + ": " + errors.getFirst().message()
                : errors.size() + " fields are invalid";
    }
}
