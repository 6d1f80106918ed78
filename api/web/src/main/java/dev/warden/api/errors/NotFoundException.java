package dev.warden.api.errors;

import java.util.List;

/** No such thing, or one the caller may not know of (both look the same: nothing leaks). */
public final class NotFoundException extends WardenException {
    private static final long serialVersionUID = 1L;

    public NotFoundException(ErrorCode code, String detail) {
        this(code, detail, List.of());
    }

    /** Naming the field that referred to the missing thing. */
    public NotFoundException(ErrorCode code, String detail, List<FieldError> errors) {
        super(code, detail, errors, 404);
    }
}
