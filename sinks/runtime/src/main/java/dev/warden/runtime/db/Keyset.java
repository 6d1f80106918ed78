package dev.warden.runtime.db;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Optional;

/**
 * A position in a list ordered by ({@code createdAt}, {@code id}), newest or oldest first: the last row of a page;
 * the next page holds the rows strictly after it.
 */
public record Keyset(Instant createdAt, String id) implements Comparable<Keyset> {
    /**
     * Binds a keyset condition's three parameters from {@code first} on, as in {@code (?::timestamptz IS NULL OR
     * (created_at, id) > (?, ?))} (or {@code <} for newest first): all null when {@code after} is empty. Answers the
     * next parameter's index.
     */
    public static int bind(PreparedStatement ps, int first, Optional<Keyset> after) throws SQLException {
        Timestamp at = after.map(k -> Timestamp.from(k.createdAt())).orElse(null);
        ps.setTimestamp(first, at);
        ps.setTimestamp(first + 1, at);
        ps.setString(first + 2, after.map(Keyset::id).orElse(null));
        return first + 3;
    }

    /** Ascending order: by {@code createdAt}, then {@code id}. */
    @Override
    public int compareTo(Keyset other) {
        int byTime = createdAt.compareTo(other.createdAt);
        return byTime != 0 ? byTime : id.compareTo(other.id);
    }
}
