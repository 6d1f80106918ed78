package dev.warden.runtime.db;

import java.time.Instant;

/**
 * A position in a list ordered by ({@code createdAt}, {@code id}), newest or oldest first: the last row of a page;
 * the next page holds the rows strictly after it.
 */
public record Keyset(Instant createdAt, String id) implements Comparable<Keyset> {
    /** Ascending order: by {@code createdAt}, then {@code id}. */
    @Override
    public int compareTo(Keyset other) {
        int byTime = createdAt.compareTo(other.createdAt);
        return byTime != 0 ? byTime : id.compareTo(other.id);
    }
}
