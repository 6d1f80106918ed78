package dev.warden.runtime.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Small JDBC conveniences shared by the repositories. */
public final class Sql {
    private Sql() {}

    /** Binds an optional timestamp. */
    public static void setInstant(PreparedStatement ps, int index, Optional<Instant> value) throws SQLException {
        if (value.isPresent()) {
            ps.setTimestamp(index, Timestamp.from(value.get()));
        } else {
            ps.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
        }
    }

    /** Binds an optional string. */
    public static void setString(PreparedStatement ps, int index, Optional<String> value) throws SQLException {
        if (value.isPresent()) {
            ps.setString(index, value.get());
        } else {
            ps.setNull(index, Types.VARCHAR);
        }
    }

    /** Binds JSON text to a {@code jsonb} parameter. */
    public static void setJson(PreparedStatement ps, int index, String json) throws SQLException {
        ps.setObject(index, json, Types.OTHER);
    }

    /** Binds optional JSON text to a {@code jsonb} parameter ({@code NULL} when empty). */
    public static void setJsonOrNull(PreparedStatement ps, int index, Optional<String> json) throws SQLException {
        if (json.isPresent()) {
            ps.setObject(index, json.get(), Types.OTHER);
        } else {
            ps.setNull(index, Types.OTHER);
        }
    }

    /** Reads a nullable timestamp column. */
    public static Optional<Instant> instant(ResultSet rs, String column) throws SQLException {
        Timestamp ts = rs.getTimestamp(column);
        return ts == null ? Optional.empty() : Optional.of(ts.toInstant());
    }

    /** Reads a non-null timestamp column. */
    public static Instant requiredInstant(ResultSet rs, String column) throws SQLException {
        return rs.getTimestamp(column).toInstant();
    }

    /** Reads a nullable text column. */
    public static Optional<String> string(ResultSet rs, String column) throws SQLException {
        return Optional.ofNullable(rs.getString(column));
    }

    /** A {@code text[]} column as a list. */
    public static List<String> strings(ResultSet rs, String column) throws SQLException {
        return List.of((String[]) rs.getArray(column).getArray());
    }

    /** Reads one row of a result set into a value. */
    @FunctionalInterface
    public interface Row<T> {
        T read(ResultSet rs) throws SQLException;
    }

    /** The rows {@code sql} answers with text parameters {@code values} bound in order, each read by {@code row}. */
    public static <T> List<T> rows(Connection conn, String sql, Row<T> row, String... values) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(sql)) {
            for (int i = 0; i < values.length; i++) {
                ps.setString(i + 1, values[i]);
            }
            List<T> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(row.read(rs));
                }
            }
            return out;
        }
    }
}
