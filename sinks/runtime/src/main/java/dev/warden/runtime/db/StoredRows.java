package dev.warden.runtime.db;

import java.io.IOException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Logger;

/**
 * Reads stored rows so that one bad row never fails a page: a row that cannot be decoded (for example JSON
 * written by an older version with values the readers now refuse) is skipped, logged with its table and id,
 * and counted per table ({@code warden_unreadable_rows_total}). Database failures still propagate: only
 * decoding is forgiven. Thread-safe.
 */
public final class StoredRows {
    private static final Logger LOG = Logger.getLogger(StoredRows.class.getName());
    private static final Map<String, LongAdder> SKIPPED = new ConcurrentHashMap<>();

    private StoredRows() {}

    /** Decodes one row. */
    @FunctionalInterface
    public interface RowDecoder<T> {
        T decode(ResultSet rs) throws SQLException, IOException;
    }

    /**
     * The decoded row at {@code rs}'s cursor, or empty (logged and counted) when it cannot be decoded.
     *
     * @param idColumn the column that names the row in the log
     */
    public static <T> Optional<T> read(String table, String idColumn, ResultSet rs, RowDecoder<T> decoder)
            throws SQLException {
        try {
            return Optional.of(decoder.decode(rs));
        } catch (IOException | RuntimeException e) {
            SKIPPED.computeIfAbsent(table, t -> new LongAdder()).increment();
            LOG.warning("skipping unreadable row " + rs.getString(idColumn) + " of " + table + ": " + e.getMessage());
            return Optional.empty();
        }
    }

    /** Rows skipped so far, per table. */
    public static Map<String, Long> skipped() {
        Map<String, Long> out = new TreeMap<>();
        SKIPPED.forEach((table, n) -> out.put(table, n.sum()));
        return out;
    }
}
