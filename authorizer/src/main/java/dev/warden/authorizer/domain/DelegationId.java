package dev.warden.authorizer.domain;

/** The id of a delegation; validated on construction (see {@link Ids}). */
public record DelegationId(String value) implements Comparable<DelegationId> {
    public DelegationId {
        Ids.require("delegationId", value);
    }

    /** Parses and validates an id supplied by a caller. */
    public static DelegationId of(String value) {
        return new DelegationId(value);
    }

    /** A new random id ({@code dlg_...}). */
    public static DelegationId random() {
        return new DelegationId(Ids.mint("dlg"));
    }

    @Override
    public int compareTo(DelegationId other) {
        return value.compareTo(other.value);
    }

    @Override
    public String toString() {
        return value;
    }
}
