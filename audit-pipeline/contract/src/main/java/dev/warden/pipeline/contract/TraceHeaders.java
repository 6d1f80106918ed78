package dev.warden.pipeline.contract;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * W3C trace context ({@code traceparent}, {@code tracestate}) in Kafka record headers, so that one decision is one
 * trace across the API, the topics, the pipeline, the sinks and the stream. Kafka Streams carries a record's
 * headers to the records it derives from it, so a topology passes the context on by itself; {@link #span} starts
 * the span of a step that handles a record. It lives in the lowest module that handles Kafka records (the quota
 * topology's), so every module above uses the same one. Stateless.
 */
public final class TraceHeaders {
    private static final W3CTraceContextPropagator PROPAGATOR = W3CTraceContextPropagator.getInstance();
    private static final String TRACEPARENT = "traceparent";

    private static final TextMapSetter<Headers> SETTER = (headers, key, value) -> {
        if (headers != null) {
            headers.remove(key);
            headers.add(key, value.getBytes(StandardCharsets.UTF_8));
        }
    };

    private static final TextMapGetter<Headers> GETTER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Headers headers) {
            List<String> keys = new ArrayList<>();
            headers.forEach(h -> keys.add(h.key()));
            return keys;
        }

        @Override
        public String get(Headers headers, String key) {
            if (headers == null) {
                return null;
            }
            Header header = headers.lastHeader(key);
            return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
        }
    };

    private static final TextMapGetter<Map<String, String>> MAP_GETTER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    private TraceHeaders() {}

    /** Writes {@code context}'s span (if any) into {@code headers}. */
    public static void inject(Context context, Headers headers) {
        PROPAGATOR.inject(context, headers, SETTER);
    }

    /** The context {@code headers} carry (the root context when they carry none). */
    public static Context extract(Headers headers) {
        return PROPAGATOR.extract(Context.root(), headers, GETTER);
    }

    /** The context a {@code traceparent} value stands for (kept where there are no headers, e.g. in a batch). */
    public static Context extract(String traceparent) {
        return PROPAGATOR.extract(Context.root(), Map.of(TRACEPARENT, traceparent), MAP_GETTER);
    }

    /** True when {@code headers} carry a trace context. */
    public static boolean present(Headers headers) {
        return headers != null && headers.lastHeader(TRACEPARENT) != null;
    }

    /**
     * The {@code traceparent} value {@code headers} carry, or empty when none (kept as it is where there are no
     * headers, e.g. in a batch; {@link #extract(String)} reads it back).
     */
    public static String traceparent(Headers headers) {
        String value = GETTER.get(headers, TRACEPARENT);
        return value == null ? "" : value;
    }

    /**
     * A span {@code name} of {@code kind} continuing the trace {@code headers} carry, started now; or an invalid
     * span (which records nothing) when they carry none, so that untraced records cost a header lookup only.
     * The caller ends it.
     */
    public static Span span(Tracer tracer, String name, SpanKind kind, Headers headers) {
        if (!present(headers)) {
            return Span.getInvalid();
        }
        return tracer.spanBuilder(name)
                .setSpanKind(kind)
                .setParent(extract(headers))
                .startSpan();
    }
}
