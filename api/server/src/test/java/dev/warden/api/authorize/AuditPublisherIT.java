package dev.warden.api.authorize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.UnavailableException;
import dev.warden.api.kafka.KafkaClients;
import dev.warden.embedded.FreePorts;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditResult;
import dev.warden.runtime.consumer.SinkCounters;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;

/** Without Kafka there is no decision: publishing fails closed with 503 and Retry-After. */
class AuditPublisherIT {
    @Test
    void unreachableKafkaFailsClosedWith503AndRetryAfter() {
        try (KafkaProducer<String, byte[]> producer =
                KafkaClients.durableProducer("127.0.0.1:" + FreePorts.next(), "dead-broker-test")) {
            SinkCounters counters = new SinkCounters();
            AuditPublisher publisher = new AuditPublisher(producer, "warden.audit", counters);
            AuditEntry entry = new AuditEntry(
                    "aud_x",
                    "agt_x",
                    Optional.empty(),
                    "admin",
                    "read",
                    "a:b",
                    Map.of(),
                    AuditResult.ALLOWED,
                    Optional.empty(),
                    0.1,
                    0,
                    Instant.now(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty());

            assertThatThrownBy(() -> publisher.publish(entry)).isInstanceOfSatisfying(UnavailableException.class, e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE);
                assertThat(e.retryAfter()).isPositive();
            });
            assertThat(counters.snapshot().auditEmitted()).isZero();
            assertThat(publisher.acknowledgedOffsets()).isEmpty();
        }
    }
}
