package dev.warden.api.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TracingTest {
    @Test
    void offRecordsNothingAndRunsTheWorkAsIs() throws Exception {
        try (Tracing off = Tracing.off()) {
            assertThat(off.enabled()).isFalse();
            assertThat(off.tracer()
                            .spanBuilder("x")
                            .startSpan()
                            .getSpanContext()
                            .isValid())
                    .isFalse();
            List<String> done = new ArrayList<>();
            off.<String>traced("t", SpanKind.CONSUMER, s -> Context.root(), done::add)
                    .accept("a");
            assertThat(done).containsExactly("a");
        }
    }

    @Test
    void fromTheEnvironmentRecordsSpansAndContinuesOnlyTracedItems() throws Exception {
        // The environment's way to point the exporter somewhere: nothing listens there, so the final flush fails fast.
        System.setProperty("otel.exporter.otlp.endpoint", "http://127.0.0.1:9");
        System.setProperty("otel.exporter.otlp.timeout", "200");
        try (Tracing on = Tracing.fromEnvironment()) {
            assertThat(on.enabled()).isTrue();
            Span parent = on.tracer().spanBuilder("parent").startSpan();
            assertThat(parent.getSpanContext().isValid()).isTrue();
            List<String> inSpan = new ArrayList<>();
            on.<Context>traced(
                            "child",
                            SpanKind.CONSUMER,
                            c -> c,
                            c -> inSpan.add(Span.current().getSpanContext().getTraceId()))
                    .accept(Context.root().with(parent));
            on.<Context>traced(
                            "child",
                            SpanKind.CONSUMER,
                            c -> c,
                            c -> inSpan.add(Span.current().getSpanContext().getTraceId()))
                    .accept(Context.root());
            assertThat(inSpan)
                    .containsExactly(
                            parent.getSpanContext().getTraceId(),
                            Span.getInvalid().getSpanContext().getTraceId());
            parent.end();
        } finally {
            System.clearProperty("otel.exporter.otlp.endpoint");
            System.clearProperty("otel.exporter.otlp.timeout");
        }
    }
}
