package dev.warden.api.observe;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Tracing with OpenTelemetry, off by default ({@code warden.tracing.enabled}). When on, the SDK is configured by
 * the standard {@code OTEL_*} variables (exporter {@code otlp} over HTTP by default,
 * {@code OTEL_EXPORTER_OTLP_ENDPOINT}, {@code OTEL_TRACES_SAMPLER}, …; {@code OTEL_SERVICE_NAME} defaults to
 * {@code warden}); OpenTelemetry's metrics and logs exporters stay off (metrics are Prometheus', logs are the
 * process's). When off, every span is a no-op and costs nothing. Closing it flushes and stops the exporter.
 */
public final class Tracing implements AutoCloseable {
    private static final String SCOPE = "dev.warden";

    private final OpenTelemetry openTelemetry;
    private final boolean enabled;
    private final AutoCloseable sdk;

    private Tracing(OpenTelemetry openTelemetry, boolean enabled, AutoCloseable sdk) {
        this.openTelemetry = openTelemetry;
        this.enabled = enabled;
        this.sdk = sdk;
    }

    /** No tracing. */
    public static Tracing off() {
        return new Tracing(OpenTelemetry.noop(), false, () -> {});
    }

    /** Tracing configured from the environment ({@code OTEL_*}), not installed as the global instance. */
    public static Tracing fromEnvironment() {
        OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder()
                .addPropertiesSupplier(() -> Map.of(
                        "otel.service.name", "warden",
                        // The exporter sends with the JDK's HTTP client (no OkHttp): OTLP over HTTP, not gRPC.
                        "otel.exporter.otlp.protocol", "http/protobuf",
                        "otel.metrics.exporter", "none",
                        "otel.logs.exporter", "none"))
                .disableShutdownHook()
                .build()
                .getOpenTelemetrySdk();
        return new Tracing(sdk, true, sdk);
    }

    /** Tracing into a given SDK (tests: an in-memory exporter); closing this does not close it. */
    public static Tracing with(OpenTelemetry openTelemetry) {
        return new Tracing(openTelemetry, true, () -> {});
    }

    /** Whether spans are recorded. */
    public boolean enabled() {
        return enabled;
    }

    /** The tracer of Warden's own spans. */
    public Tracer tracer() {
        return openTelemetry.getTracer(SCOPE);
    }

    /**
     * {@code work} wrapped in a span {@code name} continuing the context {@code parent} gives each item; items
     * without a trace context (or with tracing off) run without one.
     */
    public <T> Consumer<T> traced(String name, SpanKind kind, Function<T, Context> parent, Consumer<T> work) {
        if (!enabled) {
            return work;
        }
        Tracer tracer = tracer();
        return item -> {
            Context context = parent.apply(item);
            if (!Span.fromContext(context).getSpanContext().isValid()) {
                work.accept(item);
                return;
            }
            Span span = tracer.spanBuilder(name)
                    .setSpanKind(kind)
                    .setParent(context)
                    .startSpan();
            try (Scope ignored = span.makeCurrent()) {
                work.accept(item);
            } finally {
                span.end();
            }
        };
    }

    @Override
    public void close() throws Exception {
        sdk.close();
    }
}
