package dev.warden.sinks.external;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AuditSinksTest {
    private static final InstantSource CLOCK = InstantSource.fixed(Instant.parse("2026-01-02T03:04:05Z"));
    private final TestReceiver receiver = TestReceiver.start();

    @AfterEach
    void stopReceiver() {
        receiver.close();
    }

    @Test
    void buildMakesOneSinkPerSpecInOrderWithTheirNames() {
        List<AuditSink> sinks = AuditSinks.build(
                List.of(
                        AuditSinkSpec.builder(AuditSinkSpec.Type.SPLUNK_HEC, receiver.url())
                                .secret("hec-token")
                                .build(),
                        AuditSinkSpec.builder(AuditSinkSpec.Type.CLOUDEVENTS, receiver.url())
                                .secret("hmac")
                                .build(),
                        AuditSinkSpec.builder(AuditSinkSpec.Type.OTLP_LOGS, receiver.url())
                                .build()),
                CLOCK);
        try {
            assertThat(sinks).extracting(AuditSink::name).containsExactly("splunk-hec", "cloudevents", "otlp-logs");
        } finally {
            sinks.forEach(AuditSink::close);
        }
    }

    @Test
    void buildAppliesTypeOptionsAndTheSecret() {
        AuditSinkSpec spec = AuditSinkSpec.builder(AuditSinkSpec.Type.OTLP_LOGS, receiver.url())
                .secret("Bearer abc")
                .option("encoding", "json")
                .option("service-name", "warden-test")
                .option("header.X-Scope-OrgID", "tenant-1")
                .option("request-timeout-ms", "2000")
                .build();
        try (AuditSink sink = AuditSinks.build(spec, CLOCK)) {
            sink.send(List.of(TestAudit.anEntry()));
        }
        TestReceiver.Request request = receiver.requests().get(0);
        assertThat(request.path()).isEqualTo("/v1/logs");
        assertThat(request.header("Content-Type")).isEqualTo("application/json");
        assertThat(request.header("Authorization")).isEqualTo("Bearer abc");
        assertThat(request.header("X-Scope-OrgID")).isEqualTo("tenant-1");
        assertThat(request.bodyText()).contains("warden-test");
    }

    @Test
    void buildMapsCloudEventsModeOption() {
        AuditSinkSpec spec = AuditSinkSpec.builder(AuditSinkSpec.Type.CLOUDEVENTS, receiver.url())
                .secret("hmac")
                .option("mode", "batch")
                .build();
        try (AuditSink sink = AuditSinks.build(spec, CLOCK)) {
            sink.send(List.of(TestAudit.anEntry(), TestAudit.aDeniedEntry()));
        }
        assertThat(receiver.requests())
                .singleElement()
                .satisfies(r -> assertThat(r.header("Content-Type")).startsWith("application/cloudevents-batch+json"));
    }

    @Test
    void buildRefusesAnUnknownOptionNamingIt() {
        AuditSinkSpec spec = AuditSinkSpec.builder(AuditSinkSpec.Type.SPLUNK_HEC, receiver.url())
                .secret("hec-token")
                .option("sourcetyp", "x")
                .build();
        assertThatThrownBy(() -> AuditSinks.build(spec, CLOCK))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("splunk-hec")
                .hasMessageContaining("sourcetyp");
    }

    @Test
    void buildRefusesAMissingSecretWhereOneIsRequired() {
        for (AuditSinkSpec.Type type : List.of(AuditSinkSpec.Type.SPLUNK_HEC, AuditSinkSpec.Type.CLOUDEVENTS)) {
            AuditSinkSpec spec = AuditSinkSpec.builder(type, receiver.url()).build();
            assertThatThrownBy(() -> AuditSinks.build(spec, CLOCK))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(type.wireName())
                    .hasMessageContaining("secret");
        }
    }

    @Test
    void buildRefusesBadValuesNamingTheOption() {
        AuditSinkSpec badMode = AuditSinkSpec.builder(AuditSinkSpec.Type.CLOUDEVENTS, receiver.url())
                .secret("hmac")
                .option("mode", "binary")
                .build();
        assertThatThrownBy(() -> AuditSinks.build(badMode, CLOCK))
                .hasMessageContaining("mode")
                .hasMessageContaining("structured, batch");
        AuditSinkSpec badTimeout = AuditSinkSpec.builder(AuditSinkSpec.Type.OTLP_LOGS, receiver.url())
                .option("request-timeout-ms", "5s")
                .build();
        assertThatThrownBy(() -> AuditSinks.build(badTimeout, CLOCK)).hasMessageContaining("request-timeout-ms");
        AuditSinkSpec tooManyRetries = AuditSinkSpec.builder(AuditSinkSpec.Type.OTLP_LOGS, receiver.url())
                .option("retries", "3")
                .build();
        assertThatThrownBy(() -> AuditSinks.build(tooManyRetries, CLOCK)).hasMessageContaining("retries");
    }

    @Test
    void configsRefuseNonHttpUrlsWithoutEchoingThem() {
        assertThatThrownBy(() -> SplunkHecConfig.builder(URI.create("ftp://user:pw@splunk"), "t")
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("http(s)")
                .hasMessageNotContaining("pw");
    }

    @Test
    void specAndConfigStringsMaskSecretsAndHeaderValues() {
        AuditSinkSpec spec = AuditSinkSpec.builder(
                        AuditSinkSpec.Type.OTLP_LOGS,
                        URI.create("https://user:url-password@otlp.example/base?api-key=query-secret"))
                .secret("Bearer s3cret")
                .option("header.X-Api-Key", "header-secret")
                .option("encoding", "json")
                .build();
        assertThat(spec.toString())
                .doesNotContain("s3cret", "header-secret", "url-password", "query-secret")
                .contains("otlp-logs", "json", "otlp.example");
        OtlpLogsConfig config = OtlpLogsConfig.builder(URI.create("https://otlp.example"))
                .header("X-Api-Key", "header-secret")
                .build();
        assertThat(config.toString()).doesNotContain("header-secret").contains("X-Api-Key");
        assertThat(CloudEventsConfig.builder(URI.create("https://ce.example"), "hmac-secret")
                        .build()
                        .toString())
                .doesNotContain("hmac-secret");
    }

    @Test
    void httpOptionsDefaultToFiveSecondsAndNoRetry() {
        HttpOptions defaults = HttpOptions.defaults();
        assertThat(defaults.connectTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(defaults.requestTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(defaults.retries()).isZero();
    }
}
