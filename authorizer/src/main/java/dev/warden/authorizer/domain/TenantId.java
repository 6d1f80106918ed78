package dev.warden.authorizer.domain;

/** The id of a tenant; validated on construction (see {@link Ids}). */
public record TenantId(String value) implements Comparable<TenantId> {
    public TenantId {
        Ids.require("tenantId", value);
    }

    /** Parses and validates an id supplied by a caller. */
    public static TenantId of(String value) {
        return new TenantId(value);
    }

    /** A new random id ({@code ten_...}). */
    public static TenantId random() {
        return new TenantId(Ids.mint("ten"));
    }

    @Override
    public int compareTo(TenantId other) {
        return value.compareTo(other.value);
    }

    @Override
    public String toString() {
        return value;
    }
}
