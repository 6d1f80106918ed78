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
import java.util.logging.Level;
import java.util.logging.LogRecord;

/**
 * One JSON object per line for {@code java.util.logging} (Helidon, and Kafka and Flyway through SLF4J, log through
 * it), in the Elastic Common Schema (ECS 8.11, dotted keys as ECS logging writes them), so that Elasticsearch,
 * OpenSearch, Loki or Splunk read the fields without a mapping: {@code @timestamp}, {@code log.level}
 * ({@code ERROR}, {@code WARN}, {@code INFO}, {@code DEBUG}, {@code TRACE}), {@code log.logger}, {@code message},
 * {@code process.thread.name}, {@code service.name}, {@code service.version}, {@code ecs.version}, {@code trace.id}
 * and {@code span.id} within a span (tracing on), and {@code error.type}, {@code error.message},
 * {@code error.stack_trace} for a record with a cause. A record whose only parameter is a map (the access log) has
 * its entries as fields: the access log's under their ECS names ({@code http.request.method},
 * {@code http.response.status_code}, {@code event.duration} in nanoseconds, {@code client.ip}, {@code user.id},
 * {@code http.request.id}), the rest under {@code warden.} (the route template, the principal's kind). Selected with
 * {@code warden.log.format=json}.
 */
public final class JsonLogFormatter extends Formatter {
    static final String ECS_VERSION = "8.11";

    @Override
    public String format(LogRecord record) {
        StringWriter out = new StringWriter(256);
        try (JsonGenerator g = Json.mapper().getFactory().createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("@timestamp", record.getInstant().toString());
            g.writeStringField("log.level", level(record.getLevel()));
            g.writeStringField("log.logger", record.getLoggerName());
            Object[] parameters = record.getParameters();
            if (parameters != null && parameters.length == 1 && parameters[0] instanceof Map<?, ?> fields) {
                g.writeStringField("message", record.getMessage());
                for (Map.Entry<?, ?> field : fields.entrySet()) {
                    writeField(g, String.valueOf(field.getKey()), field.getValue());
                }
            } else {
                g.writeStringField("message", formatMessage(record));
            }
            g.writeStringField("process.thread.name", Thread.currentThread().getName());
            g.writeStringField("service.name", "warden");
            g.writeStringField("service.version", WardenVersion.current());
            g.writeStringField("ecs.version", ECS_VERSION);
            SpanContext span = Span.current().getSpanContext();
            if (span.isValid()) {
                g.writeStringField("trace.id", span.getTraceId());
                g.writeStringField("span.id", span.getSpanId());
            }
            Throwable thrown = record.getThrown();
            if (thrown != null) {
                StringWriter trace = new StringWriter();
                thrown.printStackTrace(new PrintWriter(trace));
                g.writeStringField("error.type", thrown.getClass().getName());
                g.writeStringField("error.message", String.valueOf(thrown.getMessage()));
                g.writeStringField("error.stack_trace", trace.toString());
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.append(System.lineSeparator()).toString();
    }

    /** An access-log field under its ECS name; a field ECS has no name for under {@code warden.}. */
    private static void writeField(JsonGenerator g, String key, Object value) throws IOException {
        switch (key) {
            case "method" -> g.writeObjectField("http.request.method", value);
            case "status" -> g.writeObjectField("http.response.status_code", value);
            case "durationMs" ->
                g.writeNumberField("event.duration", Math.round(((Number) value).doubleValue() * 1_000_000));
            case "client" -> g.writeObjectField("client.ip", value);
            case "principalId" -> g.writeObjectField("user.id", value);
            case "requestId" -> g.writeObjectField("http.request.id", value);
            default -> g.writeObjectField("warden." + key, value);
        }
    }

    /** ECS's level names for java.util.logging's. */
    static String level(Level level) {
        int v = level.intValue();
        if (v >= Level.SEVERE.intValue()) {
            return "ERROR";
        }
        if (v >= Level.WARNING.intValue()) {
            return "WARN";
        }
        if (v >= Level.INFO.intValue()) {
            return "INFO";
        }
        if (v >= Level.FINE.intValue()) {
            return "DEBUG";
        }
        return "TRACE";
    }
}
