package dev.warden.api.errors;

/** The caller's token lacks the scope the route needs (RFC 6750 section 3.1, {@code insufficient_scope}). */
public final class InsufficientScopeException extends ForbiddenException {
    private static final long serialVersionUID = 1L;

    private final String scope;

    public InsufficientScopeException(String scope) {
        super(ErrorCode.INSUFFICIENT_SCOPE, "this token lacks the scope " + scope);
        this.scope = scope;
    }

    /** The scope that would have been enough. */
    public String scope() {
        return scope;
    }
}
