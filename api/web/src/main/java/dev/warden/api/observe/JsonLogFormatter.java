package dev.warden.api.observe;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.warden.pipeline.contract.Json;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.logging.Formatter;
import java.util.logging.LogRecord;

/**
 * One JSON object per line for {@code java.util.logging} (Helidon, and Kafka and Flyway through SLF4J, log through
 * it): {@code {"ts", "level", "logger", "message", "thread", "trace_id"?, "span_id"?, "exception"?}}, the trace
 * and span ids when the record is written within a span (tracing on). A record whose only parameter is a
 * map (the access log) has the map's entries as fields of their own instead of being formatted into the message.
 * Selected with {@code warden.log.format=json}.
 */
public final class JsonLogFormatter extends Formatter {
    @Override
    public String format(LogRecord record) {
        StringWriter out = new StringWriter(256);
        try (JsonGenerator g = Json.mapper().getFactory().createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("ts", record.getInstant().toString());
            g.writeStringField("level", record.getLevel().getName());
            g.writeStringField("logger", record.getLoggerName());
            Object[] parameters = record.getParameters();
            if (parameters != null && parameters.length == 1 && parameters[0] instanceof Map<?, ?> fields) {
                g.writeStringField("message", record.getMessage());
                for (Map.Entry<?, ?> field : fields.entrySet()) {
                    g.writeObjectField(String.valueOf(field.getKey()), field.getValue());
                }
            } else {
                g.writeStringField("message", formatMessage(record));
            }
            g.writeStringField("thread", Thread.currentThread().getName());
            SpanContext span = Span.current().getSpanContext();
            if (span.isValid()) {
                g.writeStringField("trace_id", span.getTraceId());
                g.writeStringField("span_id", span.getSpanId());
            }
            if (record.getThrown() != null) {
                StringWriter trace = new StringWriter();
                record.getThrown().printStackTrace(new PrintWriter(trace));
                g.writeStringField("exception", trace.toString());
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.append(System.lineSeparator()).toString();
    }
}
