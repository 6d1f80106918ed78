package dev.warden.api.audit;

import java.io.IOException;
import java.io.Writer;
import java.util.List;

/** RFC 4180 CSV: CRLF line ends; a field with a comma, quote, CR or LF is quoted and its quotes doubled. */
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

    private void field(String value) throws IOException {
        boolean quote = value.indexOf(',') >= 0 || value.indexOf('"') >= 0 || value.indexOf('\n') >= 0
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
