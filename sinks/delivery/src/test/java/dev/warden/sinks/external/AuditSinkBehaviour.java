package dev.warden.sinks.external;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.sinks.external.AuditSink.SinkException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every HTTP audit sink does, whatever its wire format: bounded time, failures as {@link SinkException}
 * naming the status, at most the configured retry, and no secret in any message. One thin subclass per sink
 * adds that sink's wire-format tests.
 */
abstract class AuditSinkBehaviour {
    protected final TestReceiver receiver = TestReceiver.start();

    /** A sink delivering to {@code receiverUrl} with {@code http}. */
    protected abstract AuditSink newSink(URI receiverUrl, HttpOptions http);

    /** The credential the sink puts on the wire; it must never appear in an exception. */
    protected abstract String secret();

    /** The path the sink posts to. */
    protected abstract String expectedPath();

    protected AuditSink newSink() {
        return newSink(receiver.url(), HttpOptions.defaults());
    }

    @AfterEach
    void stopReceiver() {
        receiver.close();
    }

    @Test
    void sendWhenReceiverAnswers2xxThenPostsToTheSinksPath() {
        try (AuditSink sink = newSink()) {
            sink.send(List.of(TestAudit.anEntry()));
        }
        assertThat(receiver.requests()).singleElement().satisfies(r -> {
            assertThat(r.method()).isEqualTo("POST");
            assertThat(r.path()).isEqualTo(expectedPath());
        });
    }

    @Test
    void sendWhenReceiverAnswers500ThenThrowsSinkExceptionNamingTheStatus() {
        receiver.answer(500, "{\"text\":\"Internal server error\",\"code\":8}");
        try (AuditSink sink = newSink()) {
            assertThatThrownBy(() -> sink.send(List.of(TestAudit.anEntry())))
                    .isInstanceOf(SinkException.class)
                    .hasMessageContaining(sink.name())
                    .hasMessageContaining("HTTP 500")
                    .hasMessageContaining("Internal server error")
                    .hasMessageNotContaining(secret());
        }
    }

    @Test
    void sendWhenReceiverIsSlowerThanTheRequestTimeoutThenThrowsSinkExceptionInTime() {
        receiver.answerAfter(Duration.ofSeconds(3));
        HttpOptions http =
                HttpOptions.builder().requestTimeout(Duration.ofMillis(300)).build();
        long started = System.nanoTime();
        try (AuditSink sink = newSink(receiver.url(), http)) {
            assertThatThrownBy(() -> sink.send(List.of(TestAudit.anEntry())))
                    .isInstanceOf(SinkException.class)
                    .hasMessageContaining("no answer")
                    .hasMessageContaining("300 ms");
        }
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
    }

    @Test
    void sendWhenNothingListensThenThrowsSinkException() {
        URI closed = receiver.url();
        receiver.close();
        HttpOptions http =
                HttpOptions.builder().connectTimeout(Duration.ofSeconds(1)).build();
        try (AuditSink sink = newSink(closed, http)) {
            assertThatThrownBy(() -> sink.send(List.of(TestAudit.anEntry())))
                    .isInstanceOf(SinkException.class)
                    .hasMessageContaining(sink.name())
                    .hasMessageNotContaining(secret());
        }
    }

    @Test
    void sendWhenRetryConfiguredAndFirstAnswerIs503ThenRetriesOnceAndSucceeds() {
        receiver.thenAnswer(503, "busy");
        try (AuditSink sink =
                newSink(receiver.url(), HttpOptions.builder().retries(1).build())) {
            sink.send(List.of(TestAudit.anEntry()));
        }
        assertThat(receiver.requests()).hasSize(2);
        assertThat(receiver.requests().get(1).body())
                .isEqualTo(receiver.requests().get(0).body());
    }

    @Test
    void sendWhenNoRetryConfiguredThenA503FailsAfterOneRequest() {
        receiver.thenAnswer(503, "busy");
        try (AuditSink sink = newSink()) {
            assertThatThrownBy(() -> sink.send(List.of(TestAudit.anEntry())))
                    .isInstanceOf(SinkException.class)
                    .hasMessageContaining("HTTP 503");
        }
        assertThat(receiver.requests()).hasSize(1);
    }

    @Test
    void sendWhenReceiverAnswers400ThenDoesNotRetryEvenWhenRetriesAreConfigured() {
        receiver.answer(400, "{\"text\":\"Invalid data format\",\"code\":6}");
        try (AuditSink sink =
                newSink(receiver.url(), HttpOptions.builder().retries(1).build())) {
            assertThatThrownBy(() -> sink.send(List.of(TestAudit.anEntry())))
                    .isInstanceOf(SinkException.class)
                    .hasMessageContaining("HTTP 400");
        }
        assertThat(receiver.requests()).hasSize(1);
    }

    @Test
    void sendWhenBatchIsEmptyThenSendsNothing() {
        try (AuditSink sink = newSink()) {
            sink.send(List.of());
        }
        assertThat(receiver.requests()).isEmpty();
    }

    @Test
    void toStringNeverShowsTheSecret() {
        try (AuditSink sink = newSink()) {
            assertThat(sink.toString()).contains(sink.name()).doesNotContain(secret());
        }
    }
}
