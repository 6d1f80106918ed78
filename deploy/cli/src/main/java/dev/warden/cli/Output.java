package dev.warden.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * How a command prints what it got: a table for people (the columns a command chooses, one row per item, a
 * {@code key: value} list for one item) or, with {@code --output json}, the server's JSON as it came, for scripts.
 * Progress and notes go to standard error, so that standard output stays the result alone.
 */
public final class Output {
    /** The formats of {@code --output}. */
    public enum Format {
        table,
        json
    }

    /** A column: its heading and how to read it from an item. */
    public record Column(String heading, Function<JsonNode, String> value) {
        /** A column showing the field {@code field} (arrays joined with commas, null as "-"). */
        public static Column of(String heading, String field) {
            return new Column(heading, item -> Output.text(item.path(field)));
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Format format;
    private final PrintWriter out;
    private final PrintWriter err;

    public Output(Format format, PrintWriter out, PrintWriter err) {
        this.format = format;
        this.out = out;
        this.err = err;
    }

    public Format format() {
        return format;
    }

    public PrintWriter out() {
        return out;
    }

    /** A note for people, on standard error (never part of the result). */
    public void note(String text) {
        err.println(text);
        err.flush();
    }

    /** A list of items: a table of {@code columns}, or the JSON array. */
    public void list(JsonNode items, List<Column> columns) {
        if (format == Format.json) {
            json(items);
            return;
        }
        List<List<String>> rows = new ArrayList<>();
        for (JsonNode item : items) {
            List<String> row = new ArrayList<>();
            for (Column c : columns) {
                row.add(c.value().apply(item));
            }
            rows.add(row);
        }
        table(columns.stream().map(Column::heading).toList(), rows);
        if (rows.isEmpty()) {
            note("(none)");
        }
    }

    /** One item: {@code heading: value} lines, or the JSON object. */
    public void item(JsonNode item, List<Column> fields) {
        if (format == Format.json) {
            json(item);
            return;
        }
        int width = fields.stream().mapToInt(f -> f.heading().length()).max().orElse(0);
        for (Column f : fields) {
            out.println(pad(f.heading() + ":", width + 1) + " " + f.value().apply(item));
        }
        out.flush();
    }

    /** The JSON value on one line. */
    public void json(JsonNode value) {
        try {
            out.println(JSON.writeValueAsString(value));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        out.flush();
    }

    /** A plain table: headings in capitals, columns as wide as their widest cell. */
    public void table(List<String> headings, List<List<String>> rows) {
        int[] widths = new int[headings.size()];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = headings.get(i).length();
            for (List<String> row : rows) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        out.println(line(
                headings.stream().map(h -> h.toUpperCase(java.util.Locale.ROOT)).toList(), widths));
        for (List<String> row : rows) {
            out.println(line(row, widths));
        }
        out.flush();
    }

    private static String line(List<String> cells, int[] widths) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            b.append(i == cells.size() - 1 ? cells.get(i) : pad(cells.get(i), widths[i]) + "  ");
        }
        return b.toString().stripTrailing();
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s : s + " ".repeat(width - s.length());
    }

    /** A field as one line of text: arrays joined with commas, objects as JSON, null or missing as "-". */
    public static String text(JsonNode value) {
        if (value == null || value.isMissingNode() || value.isNull()) {
            return "-";
        }
        if (value.isArray()) {
            List<String> parts = new ArrayList<>();
            value.forEach(v -> parts.add(v.isValueNode() ? v.asText() : v.toString()));
            return parts.isEmpty() ? "-" : String.join(",", parts);
        }
        return value.isValueNode() ? value.asText() : value.toString();
    }

    /** Permissions as {@code resource=action,action} separated by spaces (the compact form the CLI takes). */
    public static String permissions(JsonNode permissions) {
        List<String> parts = new ArrayList<>();
        for (JsonNode p : permissions) {
            parts.add(p.path("resource").asText() + "=" + text(p.path("actions")));
        }
        return parts.isEmpty() ? "-" : String.join(" ", parts);
    }
}
