package dev.warden.api.observe;

import dev.warden.api.access.RouteTable;
import io.helidon.http.HeaderNames;
import io.helidon.http.Headers;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.List;

/**
 * A server span per HTTP request, named by method and route template ({@code POST /authorize}), continuing the
 * caller's W3C {@code traceparent} when it sends one, and current while the request is handled: the spans and
 * Kafka records the request causes belong to its trace. Mounted only when tracing is on. Attributes follow
 * OpenTelemetry's HTTP conventions ({@code http.request.method}, {@code http.route},
 * {@code http.response.status_code}); a 5xx marks the span as an error. Never records a header or a body.
 */
public final class TracingFilter implements Filter {
    private static final TextMapGetter<Headers> HEADERS = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Headers headers) {
            return List.of("traceparent", "tracestate");
        }

        @Override
        public String get(Headers headers, String key) {
            return headers == null
                    ? null
                    : headers.first(HeaderNames.create(key)).orElse(null);
        }
    };

    private final Tracer tracer;
    private final RouteTable routes;

    public TracingFilter(Tracer tracer, RouteTable routes) {
        this.tracer = tracer;
        this.routes = routes;
    }

    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        String method = req.prologue().method().text();
        Context parent = W3CTraceContextPropagator.getInstance().extract(Context.root(), req.headers(), HEADERS);
        Span span = tracer.spanBuilder(method)
                .setSpanKind(SpanKind.SERVER)
                .setParent(parent)
                .setAttribute("http.request.method", method)
                .startSpan();
        try (Scope ignored = span.makeCurrent()) {
            chain.proceed();
        } finally {
            String route = HttpObservation.route(routes, req);
            int status = res.status().code();
            span.updateName(method + " " + route);
            span.setAttribute("http.route", route);
            span.setAttribute("http.response.status_code", status);
            if (status >= 500) {
                span.setStatus(StatusCode.ERROR);
            }
            span.end();
        }
    }
}
