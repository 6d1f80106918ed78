package dev.warden.api.audit;

import java.io.IOException;
import java.io.Writer;
import java.util.List;

/**
 * RFC 4180 CSV: CRLF line ends; a field with a comma, quote, CR or LF is quoted and its quotes doubled.
 *
 * <p>Formula cells are neutralised (OWASP "CSV injection"): a field that starts with {@code =}, {@code +},
 * {@code -}, {@code @}, a tab or a carriage return gets a leading {@code '}, so a spreadsheet shows it as
 * text instead of evaluating it. Every field of an audit export comes from callers (actions, resources,
 * addresses, user agents) or is a value none of whose forms starts that way, so the rule applies to all.
 */
final class CsvWriter {
    private final Writer out;

    CsvWriter(Writer out) {
        this.out = out;
    }

    void row(List<String> fields) throws IOException {
        for (int i = 0; i < fields.size(); i++) {
            if (i > 0) {
                out.write(',');
            }
            field(fields.get(i));
        }
        out.write("\r\n");
    }

    /** {@code value}, with a leading {@code '} when a spreadsheet would read it as a formula. */
    static String neutralised(String value) {
        if (value.isEmpty()) {
            return value;
        }
        char first = value.charAt(0);
        boolean formula =
                first == '=' || first == '+' || first == '-' || first == '@' || first == '\t' || first == '\r';
        return formula ? "'" + value : value;
    }

    private void field(String raw) throws IOException {
        String value = neutralised(raw);
        boolean quote = value.indexOf(',') >= 0
                || value.indexOf('"') >= 0
                || value.indexOf('\n') >= 0
                || value.indexOf('\r') >= 0;
        if (!quote) {
            out.write(value);
            return;
        }
        out.write('"');
        out.write(value.replace("\"", "\"\""));
        out.write('"');
    }
}
