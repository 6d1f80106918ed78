package dev.warden.api.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.api.ratelimit.StoreKind;
import dev.warden.runtime.consumer.SinkHealth;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ChecksTest {
    static final Instant NOW = Instant.parse("2026-11-24T12:00:00Z");

    static void assertFinding(Optional<Finding> finding, String id, String severity) {
        assertThat(finding).isPresent();
        assertThat(finding.get().id().wireName()).isEqualTo(id);
        assertThat(finding.get().severity().wireName()).isEqualTo(severity);
        assertThat(finding.get().title()).isNotBlank();
        assertThat(finding.get().detail()).isNotBlank();
        assertThat(finding.get().fix()).isNotBlank();
    }

    @Test
    void anonymousRegistrationIsAWarningOnlyWhenAllowed() {
        assertThat(Checks.anonymousRegistration(false)).isEmpty();
        assertFinding(Checks.anonymousRegistration(true), "anonymous-registration-on", "warning");
    }

    @Test
    void openMcpRegistrationIsInfoAndTheFixExplainsWhy() {
        assertThat(Checks.mcpRegistration(false)).isEmpty();
        Optional<Finding> open = Checks.mcpRegistration(true);

        assertFinding(open, "mcp-registration-open", "info");
        assertThat(open.orElseThrow().fix()).contains("info, not as a warning", "consent");
    }

    @Test
    void forwardingHeadersAreReportedWithTheirCountOnlyWhenNoProxyIsTrusted() {
        assertThat(Checks.forwardedHeaders(false, 0)).isEmpty();
        assertThat(Checks.forwardedHeaders(true, 12)).isEmpty();
        Optional<Finding> seen = Checks.forwardedHeaders(false, 12);

        assertFinding(seen, "forwarded-headers-untrusted", "warning");
        assertThat(seen.orElseThrow().detail()).startsWith("12 look-ups").contains("trusted-proxies");
    }

    @Test
    void aWeakConfiguredBootstrapTokenIsCriticalAndNamesOnlyItsWeaknesses() {
        assertThat(Checks.bootstrapToken(BootstrapTokenVerdict.minted(), true)).isEmpty();
        assertThat(Checks.bootstrapToken(
                        BootstrapTokenVerdict.of(Optional.of("Zq8#vT2!mL5@xR9$wK3%nB7^cH1&pJ4*")), true))
                .isEmpty();
        Optional<Finding> weak = Checks.bootstrapToken(BootstrapTokenVerdict.of(Optional.of("letmein")), true);

        assertFinding(weak, "bootstrap-token-weak", "critical");
        assertThat(weak.orElseThrow().detail()).contains("shorter than 32 characters");
        assertThat(weak.orElseThrow().toString()).doesNotContain("letmein");
    }

    @Test
    void theDoctorSaysWhenTheBootstrapTokenIsOffAndWhenItShouldBe() {
        assertFinding(Checks.bootstrapStillOn(true, true), "bootstrap-token-still-on", "warning");
        assertThat(Checks.bootstrapStillOn(false, true)).isEmpty();
        assertThat(Checks.bootstrapStillOn(true, false)).isEmpty();
        assertFinding(
                Checks.bootstrapToken(BootstrapTokenVerdict.of(Optional.of("letmein")), false),
                "bootstrap-token-off",
                "info");
    }

    @Test
    void anHttpIssuerIsCriticalOutsideDev() {
        assertThat(Checks.issuer("https://warden.example.com", true, false)).isEmpty();
        assertThat(Checks.issuer("http://localhost:8080", false, true)).isEmpty();
        assertFinding(Checks.issuer("http://warden.example.com", true, false), "issuer-not-https", "critical");
    }

    @Test
    void anIssuerDerivedFromTheListenerSaysSo() {
        Optional<Finding> derived = Checks.issuer("http://localhost:8080", false, false);

        assertFinding(derived, "issuer-not-https", "critical");
        assertThat(derived.orElseThrow().detail()).contains("is not set", "http://localhost:8080");
    }

    @Test
    void argon2CostsAreHeldToOwaspsMinimumForTheirNumberOfPasses() {
        assertThat(Checks.passwordHashing(19_456, 2, 1)).isEmpty();
        assertThat(Checks.passwordHashing(47_104, 1, 1)).isEmpty();
        assertThat(Checks.passwordHashing(12_288, 3, 1)).isEmpty();
        assertThat(Checks.passwordHashing(9_216, 4, 1)).isEmpty();
        assertThat(Checks.passwordHashing(7_168, 5, 1)).isEmpty();
        assertThat(Checks.passwordHashing(7_168, 10, 1)).isEmpty();
        assertThat(Checks.passwordHashing(65_536, 3, 4)).isEmpty();

        assertFinding(Checks.passwordHashing(19_456, 1, 1), "password-hash-weak", "warning");
        assertFinding(Checks.passwordHashing(1_024, 1, 1), "password-hash-weak", "warning");
        Optional<Finding> weak = Checks.passwordHashing(12_287, 3, 1);
        assertFinding(weak, "password-hash-weak", "warning");
        assertThat(weak.orElseThrow().detail()).contains("m=12287 KiB, t=3, p=1", "at least 12288 KiB");
        assertThat(weak.orElseThrow().fix()).contains("OWASP Password Storage Cheat Sheet");
    }

    @Test
    void aSigningKeyOlderThanItsRotationPeriodIsStale() {
        Duration rotation = Duration.ofDays(30);
        assertThat(Checks.signingKey(Optional.empty(), rotation, NOW)).isEmpty();
        assertThat(Checks.signingKey(Optional.of(NOW.minus(Duration.ofDays(29))), rotation, NOW))
                .isEmpty();
        assertThat(Checks.signingKey(Optional.of(NOW.minus(rotation)), rotation, NOW))
                .isEmpty();
        Optional<Finding> stale = Checks.signingKey(Optional.of(NOW.minus(Duration.ofDays(45))), rotation, NOW);

        assertFinding(stale, "signing-key-stale", "warning");
        assertThat(stale.orElseThrow().detail()).contains("45 days ago", "30 days");
    }

    @Test
    void replicationFactorOneIsAWarningOutsideDev() {
        assertThat(Checks.topicReplication((short) 3, false)).isEmpty();
        assertThat(Checks.topicReplication((short) 1, true)).isEmpty();
        assertFinding(Checks.topicReplication((short) 1, false), "topic-replication-factor-1", "warning");
    }

    @Test
    void webhookSecretsAreReportedWithoutAKeyAndWhenOldOnesStayInClear() {
        assertThat(Checks.webhookSecrets(true, 0)).isEmpty();
        Optional<Finding> noKey = Checks.webhookSecrets(false, 0);
        assertFinding(noKey, "webhook-secrets-unencrypted", "warning");
        assertThat(noKey.orElseThrow().fix()).contains("warden.webhooks.encryption-key");
        Optional<Finding> leftOver = Checks.webhookSecrets(true, 3);
        assertFinding(leftOver, "webhook-secrets-unencrypted", "warning");
        assertThat(leftOver.orElseThrow().detail()).startsWith("3 webhook signing secrets");
    }

    @Test
    void aHealthySinkYieldsNoFinding() {
        SinkHealth sink = new SinkHealth("postgres-audit");
        sink.stored();

        assertThat(Checks.sink(sink.sink(), sink.degradedReason())).isEmpty();
    }

    @Test
    void aSinkWhoseWritesKeepFailingIsCriticalAndNamed() {
        SinkHealth sink = new SinkHealth("splunk-hec");
        for (int i = 0; i < 3; i++) {
            sink.failed("connection refused");
        }
        Optional<Finding> failing = Checks.sink(sink.sink(), sink.degradedReason());

        assertFinding(failing, "sink-failing", "critical");
        assertThat(failing.orElseThrow().detail()).contains("splunk-hec", "connection refused");
    }

    @Test
    void aSinkFallingBehindIsAWarningAndNamed() {
        SinkHealth sink = new SinkHealth("webhooks");
        long nanos = 0;
        for (long lag = 2_000; lag <= 9_000; lag += 1_000) {
            sink.lag(lag, nanos);
            nanos += Duration.ofSeconds(6).toNanos();
        }
        Optional<Finding> lagging = Checks.sink(sink.sink(), sink.degradedReason());

        assertFinding(lagging, "sink-lagging", "warning");
        assertThat(lagging.orElseThrow().detail()).contains("webhooks", "9000 records");
    }

    @Test
    void anAuditSinkWhoseBacklogNearsTheRetentionIsCriticalAndAPausedOneAWarning() {
        SinkHealth sink = new SinkHealth("audit-sink:siem");
        sink.retention(Duration.ofHours(1));
        sink.pending(System.currentTimeMillis() - Duration.ofMinutes(30).toMillis());
        assertThat(Checks.sink(sink.sink(), sink.degradedReason())).isEmpty();
        sink.pending(0);
        sink.pending(System.currentTimeMillis() - Duration.ofMinutes(50).toMillis());
        Optional<Finding> near = Checks.sink(sink.sink(), sink.degradedReason());
        assertFinding(near, "sink-backlog-near-retention", "critical");
        assertThat(near.orElseThrow().detail()).contains("audit-sink:siem", "retention 3600 s");

        SinkHealth paused = new SinkHealth("audit-sink:otel");
        paused.paused(true);
        assertFinding(Checks.sink(paused.sink(), paused.degradedReason()), "sink-paused", "warning");
        paused.paused(false);
        assertThat(Checks.sink(paused.sink(), paused.degradedReason())).isEmpty();
    }

    @Test
    void aMemoryRateLimitStoreIsAWarningOnlyWithSeveralLiveInstances() {
        assertThat(Checks.rateLimitStore(StoreKind.MEMORY, 1)).isEmpty();
        assertThat(Checks.rateLimitStore(StoreKind.MEMORY, 0)).isEmpty();
        assertThat(Checks.rateLimitStore(StoreKind.REDIS, 4)).isEmpty();
        Optional<Finding> several = Checks.rateLimitStore(StoreKind.MEMORY, 3);

        assertFinding(several, "rate-limit-store-memory-multi-instance", "warning");
        assertThat(several.orElseThrow().detail()).startsWith("3 API instances").contains("up to 3 times");
    }

    @Test
    void findingsAreOrderedBySeverityThenId() {
        List<Finding> findings = List.of(
                Checks.mcpRegistration(true).orElseThrow(),
                Checks.topicReplication((short) 1, false).orElseThrow(),
                Checks.bootstrapToken(BootstrapTokenVerdict.of(Optional.of("admin")), true)
                        .orElseThrow(),
                Checks.anonymousRegistration(true).orElseThrow(),
                Checks.issuer("http://warden.example.com", true, false).orElseThrow());

        Report report = new Report(NOW, findings);

        assertThat(report.findings())
                .extracting(f -> f.id().wireName())
                .containsExactly(
                        "bootstrap-token-weak",
                        "issuer-not-https",
                        "anonymous-registration-on",
                        "topic-replication-factor-1",
                        "mcp-registration-open");
        assertThat(report.counts())
                .containsEntry(Severity.CRITICAL, 2L)
                .containsEntry(Severity.WARNING, 2L)
                .containsEntry(Severity.INFO, 1L);
    }
}
