package dev.warden.api.users;

/** A username or e-mail address that another user already holds (a unique constraint fired). */
public class AlreadyTakenException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String field;

    public AlreadyTakenException(String field) {
        super(field + " is already taken");
        this.field = field;
    }

    /** {@code username} or {@code email}. */
    public String field() {
        return field;
    }
}
