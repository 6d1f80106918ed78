package dev.warden.api.errors;

import java.util.List;

/** The caller is known but may not do this. */
public sealed class ForbiddenException extends WardenException permits InsufficientScopeException {
    private static final long serialVersionUID = 1L;

    /** {@link ErrorCode#FORBIDDEN} with a detail. */
    public ForbiddenException(String detail) {
        this(ErrorCode.FORBIDDEN, detail);
    }

    public ForbiddenException(ErrorCode code, String detail) {
        this(code, detail, List.of());
    }

    /** Naming the fields that asked for what is not allowed. */
    public ForbiddenException(ErrorCode code, String detail, List<FieldError> errors) {
        super(code, detail, errors, 403);
    }
}
