package dev.warden.api.observe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.testing.Http;
import dev.warden.testing.SseClient;
import dev.warden.testing.TestPlatform;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One decision is one trace: the request's server span, the audit entry's producer span, the quota topology's
 * span, the audit row's and the stream store's store spans, the audit event's publish span and the SSE delivery all
 * share the trace id the caller sent in {@code traceparent}, each the child of the step before it. Recorded by the
 * SDK's in-memory exporter, with every role in one process on the real broker and database.
 */
class TracingIT {
    static final InMemorySpanExporter SPANS = InMemorySpanExporter.create();

    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(
            b -> b,
            () -> Tracing.with(OpenTelemetrySdk.builder()
                    .setTracerProvider(SdkTracerProvider.builder()
                            .addSpanProcessor(SimpleSpanProcessor.create(SPANS))
                            .build())
                    .build()));

    static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

    @Test
    void oneDecisionIsOneTraceFromTheRequestToTheAuditRowAndTheStream() throws Exception {
        Http http = warden.http();
        String admin = warden.adminToken();
        String agent = http.post(
                        "/agents",
                        admin,
                        "{\"ownerId\":\"tia\",\"name\":\"t\",\"type\":\"autonomous\","
                                + "\"permissions\":[{\"resource\":\"doc:*\",\"actions\":[\"read\"],"
                                + "\"constraints\":{\"maxCallsPerHour\":100}}]}")
                .json()
                .get("id")
                .asText();
        try (SseClient sse = SseClient.connect(
                http.baseUri(), "/events/stream?types=audit", Map.of("Authorization", "Bearer " + admin))) {
            Http.Response decided = http.send(http.builder("/authorize", admin)
                    .header("Content-Type", "application/json")
                    .header("traceparent", "00-" + TRACE + "-00f067aa0ba902b7-01")
                    .POST(HttpRequest.BodyPublishers.ofString(
                            "{\"agentId\":\"" + agent + "\",\"action\":\"read\",\"resource\":\"doc:1\"}")));
            assertThat(decided.json().get("allowed").asBoolean()).isTrue();
            assertThat(sse.events(1, Duration.ofSeconds(20))).hasSize(1);
        }

        SpanData server = await("POST /authorize", SpanKind.SERVER);
        SpanData publish = await("warden.audit publish", SpanKind.PRODUCER);
        SpanData quota = await("quota decide", SpanKind.CONSUMER);
        SpanData row = await("postgres-audit store", SpanKind.CONSUMER);
        SpanData event = await("audit event publish", SpanKind.PRODUCER);
        SpanData stored = await("stream-store store", SpanKind.CONSUMER);
        SpanData delivered = await("sse deliver", SpanKind.CONSUMER);

        assertThat(server.getParentSpanId()).isEqualTo("00f067aa0ba902b7");
        assertThat(server.getAttributes().asMap().toString())
                .contains("http.route=/authorize")
                .contains("http.response.status_code=200");
        assertThat(publish.getParentSpanId()).isEqualTo(server.getSpanId());
        assertThat(quota.getParentSpanId()).isEqualTo(server.getSpanId());
        assertThat(row.getParentSpanId()).isEqualTo(publish.getSpanId());
        assertThat(event.getParentSpanId()).isEqualTo(publish.getSpanId());
        assertThat(stored.getParentSpanId()).isEqualTo(publish.getSpanId());
        assertThat(delivered.getParentSpanId()).isEqualTo(publish.getSpanId());
    }

    /** The first span of the test's trace named {@code name} of {@code kind}, once exported. */
    private static SpanData await(String name, SpanKind kind) throws InterruptedException {
        Instant deadline = Instant.now().plusSeconds(20);
        while (Instant.now().isBefore(deadline)) {
            Optional<SpanData> span = trace().stream()
                    .filter(s -> s.getName().equals(name) && s.getKind() == kind)
                    .findFirst();
            if (span.isPresent()) {
                return span.get();
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no span " + name + " in the trace; it has "
                + trace().stream().map(SpanData::getName).toList());
    }

    private static List<SpanData> trace() {
        return SPANS.getFinishedSpanItems().stream()
                .filter(s -> s.getTraceId().equals(TRACE))
                .toList();
    }
}
