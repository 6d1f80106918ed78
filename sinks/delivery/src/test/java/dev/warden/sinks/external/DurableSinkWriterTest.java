package dev.warden.sinks.external;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The retry schedule of a durable sink, what a {@code Retry-After} asks, and how sinks are named. */
class DurableSinkWriterTest {
    static final Duration CEILING = Duration.ofSeconds(60);

    @Test
    void theBackoffDoublesUpToTheCeilingWithFullJitter() {
        assertThat(DurableSinkWriter.backoff(1, CEILING, 1.0)).isEqualTo(Duration.ofMillis(500));
        assertThat(DurableSinkWriter.backoff(2, CEILING, 1.0)).isEqualTo(Duration.ofMillis(1000));
        assertThat(DurableSinkWriter.backoff(5, CEILING, 1.0)).isEqualTo(Duration.ofMillis(8000));
        assertThat(DurableSinkWriter.backoff(20, CEILING, 1.0)).isEqualTo(CEILING);
        assertThat(DurableSinkWriter.backoff(1000, CEILING, 1.0)).isEqualTo(CEILING);
        // Full jitter: anywhere below the cap, never quite nothing
        assertThat(DurableSinkWriter.backoff(5, CEILING, 0.5)).isEqualTo(Duration.ofMillis(4000));
        assertThat(DurableSinkWriter.backoff(5, CEILING, 0.0)).isEqualTo(Duration.ofMillis(50));
    }

    @Test
    void aRetryAfterIsHonouredUpToTenMinutesWhateverTheCeiling() {
        DurableSinkWriter writer = new DurableSinkWriter(
                new Refusing(),
                null,
                "warden.audit",
                new dev.warden.runtime.consumer.SinkCounters(),
                Duration.ofSeconds(1));
        AuditSink.SinkException busy =
                new AuditSink.SinkException("busy", null, false, Optional.of(Duration.ofSeconds(30)));
        assertThat(writer.retryDelay(busy, 1)).isEqualTo(Duration.ofSeconds(30));
        assertThat(writer.retryDelay(new RuntimeException("wrapped", busy), 7)).isEqualTo(Duration.ofSeconds(30));
        AuditSink.SinkException greedy =
                new AuditSink.SinkException("busy", null, false, Optional.of(Duration.ofDays(1)));
        assertThat(writer.retryDelay(greedy, 1)).isEqualTo(Duration.ofMinutes(10));
        assertThat(writer.retryDelay(new AuditSink.SinkException("down"), 9))
                .isLessThanOrEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void retryAfterReadsSecondsAndHttpDates() {
        Instant now = Instant.parse("2026-11-28T10:00:00Z");
        assertThat(dev.warden.runtime.outbound.RetryAfter.parse(Optional.of("120"), now))
                .hasValue(Duration.ofSeconds(120));
        assertThat(dev.warden.runtime.outbound.RetryAfter.parse(Optional.of("Sat, 28 Nov 2026 10:00:30 GMT"), now))
                .hasValue(Duration.ofSeconds(30));
        assertThat(dev.warden.runtime.outbound.RetryAfter.parse(Optional.of("Sat, 28 Nov 2026 09:00:00 GMT"), now))
                .hasValue(Duration.ZERO);
        assertThat(dev.warden.runtime.outbound.RetryAfter.parse(Optional.of("-5"), now))
                .isEmpty();
        assertThat(dev.warden.runtime.outbound.RetryAfter.parse(Optional.of("soon"), now))
                .isEmpty();
        assertThat(dev.warden.runtime.outbound.RetryAfter.parse(Optional.empty(), now))
                .isEmpty();
    }

    @Test
    void sinksAreNamedByTheirTypeNumberedOrByTheirOwnName() {
        URI url = URI.create("http://127.0.0.1:9");
        AuditSinkSpec hec = AuditSinkSpec.builder(AuditSinkSpec.Type.SPLUNK_HEC, url)
                .secret("t")
                .build();
        AuditSinkSpec named = AuditSinkSpec.builder(AuditSinkSpec.Type.SPLUNK_HEC, url)
                .secret("t")
                .option("name", "soc-splunk")
                .build();
        assertThat(AuditSinks.names(List.of(hec, hec, named, hec)))
                .containsExactly("splunk-hec", "splunk-hec-2", "soc-splunk", "splunk-hec-3");
        assertThatThrownBy(() -> AuditSinks.names(List.of(named, named))).hasMessageContaining("unique");
        AuditSinkSpec bad = AuditSinkSpec.builder(AuditSinkSpec.Type.SPLUNK_HEC, url)
                .secret("t")
                .option("name", "Not OK")
                .build();
        assertThatThrownBy(() -> AuditSinks.names(List.of(bad))).hasMessageContaining("[a-z0-9-]");
        assertThatThrownBy(() -> AuditSinks.build(
                        List.of(AuditSinkSpec.builder(AuditSinkSpec.Type.SPLUNK_HEC, url)
                                .secret("t")
                                .option("retry-ceiling-ms", "5")
                                .build()),
                        java.time.Clock.systemUTC()))
                .hasMessageContaining("retry-ceiling-ms");
        try (AuditSink built =
                AuditSinks.build(List.of(named), java.time.Clock.systemUTC()).getFirst()) {
            assertThat(built.name()).isEqualTo("soc-splunk");
            assertThat(built.retryCeiling()).isEqualTo(Duration.ofSeconds(60));
        }
    }

    private static final class Refusing implements AuditSink {
        @Override
        public String name() {
            return "refusing";
        }

        @Override
        public void send(List<dev.warden.pipeline.contract.AuditEntry> batch) {
            throw new SinkException("no");
        }
    }
}
