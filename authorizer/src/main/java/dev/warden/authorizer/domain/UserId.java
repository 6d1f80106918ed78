package dev.warden.authorizer.domain;

/** The id of a user; validated on construction (see {@link Ids}). */
public record UserId(String value) implements Comparable<UserId> {
    public UserId {
        Ids.require("userId", value);
    }

    /** Parses and validates an id supplied by a caller. */
    public static UserId of(String value) {
        return new UserId(value);
    }

    /** A new random id ({@code usr_...}). */
    public static UserId random() {
        return new UserId(Ids.mint("usr"));
    }

    @Override
    public int compareTo(UserId other) {
        return value.compareTo(other.value);
    }

    @Override
    public String toString() {
        return value;
    }
}
