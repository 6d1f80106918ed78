package dev.warden.api.errors;

import java.util.List;

/** The request is valid but the current state does not allow it (a revoked agent, a name in use, a cycle). */
public final class ConflictException extends WardenException {
    private static final long serialVersionUID = 1L;

    public ConflictException(ErrorCode code, String detail) {
        this(code, detail, List.of());
    }

    public ConflictException(ErrorCode code, String detail, List<FieldError> errors) {
        super(code, detail, errors, 409);
    }
}
