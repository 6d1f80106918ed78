package dev.warden.api.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.config.WardenConfig;
import dev.warden.api.oauth.Issuer;
import dev.warden.api.oauth.OAuthConfig;
import dev.warden.api.ratelimit.ClientIp;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.api.ratelimit.StoreKind;
import dev.warden.api.users.UsersConfig;
import dev.warden.api.webhooks.WebhooksConfig;
import dev.warden.pipeline.contract.Json;
import dev.warden.pipeline.contract.Topics;
import dev.warden.runtime.consumer.SinkHealth;
import dev.warden.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DoctorTest {
    static final String STRONG_TOKEN = "wdn_adm_Zq8#vT2!mL5@xR9$wK3%nB7^cH1&pJ4*";

    final MutableClock clock = new MutableClock();
    final InMemoryApiInstances instances = new InMemoryApiInstances();
    final FixedFacts facts = new FixedFacts();

    /** {@link StoredFacts} as the test sets them. */
    static final class FixedFacts implements StoredFacts {
        Optional<Instant> newestSigningKey = Optional.empty();
        long webhookSecretsInClear;

        @Override
        public Optional<Instant> newestSigningKey(Instant now) {
            return newestSigningKey;
        }

        @Override
        public long webhookSecretsInClear() {
            return webhookSecretsInClear;
        }

        @Override
        public boolean administratorExists() {
            return false;
        }
    }

    /** A production configuration (external Kafka and PostgreSQL) with nothing to report. */
    static WardenConfig.Builder healthy() {
        return healthyDev().kafkaBootstrap("kafka-1:9092").pgUrl("jdbc:postgresql://db:5432/warden");
    }

    /** The same on the embedded Kafka and PostgreSQL: a dev deployment. */
    static WardenConfig.Builder healthyDev() {
        Topics replicated = Topics.defaults();
        return WardenConfig.builder()
                .instanceId("api-1")
                .roles("api")
                .bootstrapToken(STRONG_TOKEN)
                .topics(new Topics(
                        replicated.audit(),
                        replicated.auditPartitions(),
                        replicated.events(),
                        replicated.quotaRequests(),
                        replicated.quotaReplies(),
                        replicated.quotaPartitions(),
                        (short) 3,
                        replicated.dashboardHourly(),
                        replicated.dashboardTotals(),
                        replicated.budgetSpend()))
                .oauth(OAuthConfig.builder()
                        .issuer("https://warden.example.com")
                        .mcpRegistrationOpen(false)
                        .build())
                .webhooks(WebhooksConfig.builder()
                        .encryptionKey(Base64.getEncoder().encodeToString(new byte[32]))
                        .build())
                .rateLimit(RateLimitConfig.builder().store(StoreKind.REDIS).build());
    }

    /** A doctor of {@code config}, its issuer derived as the platform does when none is configured. */
    Doctor doctor(WardenConfig.Builder config, List<SinkHealth> sinks) {
        WardenConfig built = config.build();
        Issuer issuer = Issuer.of(built.oauth().issuer().orElse("http://localhost:8080"));
        return new Doctor(
                DoctorSettings.from(built),
                issuer,
                ClientIp.untrusting(),
                sinks,
                facts,
                new ApiHeartbeat(instances, built.instanceId(), "api", clock),
                clock);
    }

    Doctor doctor(WardenConfig.Builder config) {
        return doctor(config, List.of());
    }

    static List<String> ids(Report report) {
        return report.findings().stream().map(f -> f.id().wireName()).toList();
    }

    @Test
    void aHealthyDeploymentHasNoFindings() {
        facts.newestSigningKey = Optional.of(clock.instant().minus(Duration.ofDays(2)));
        instances.beat("api-1", "api", clock.instant());
        instances.beat("api-2", "api", clock.instant());

        Report report = doctor(healthy()).examine();

        assertThat(report.findings()).isEmpty();
        assertThat(report.generatedAt()).isEqualTo(clock.instant());
        assertThat(report.counts())
                .containsEntry(Severity.CRITICAL, 0L)
                .containsEntry(Severity.WARNING, 0L)
                .containsEntry(Severity.INFO, 0L);
    }

    @Test
    void theDefaultsOfAProductionDeploymentAreReported() {
        Doctor doctor =
                doctor(WardenConfig.builder().kafkaBootstrap("kafka-1:9092").pgUrl("jdbc:postgresql://db/w"));

        assertThat(ids(doctor.examine()))
                .containsExactly(
                        "issuer-not-https",
                        "topic-replication-factor-1",
                        "webhook-secrets-unencrypted",
                        "mcp-registration-open");
    }

    @Test
    void aDevDeploymentIsNotAskedForHttpsOrReplication() {
        Report report = doctor(healthyDev()
                        .oauth(OAuthConfig.builder().mcpRegistrationOpen(false).build())
                        .topics(Topics.defaults()))
                .examine();

        assertThat(report.findings()).isEmpty();
    }

    @Test
    void everyProblemIsReportedMostSevereFirst() {
        facts.newestSigningKey = Optional.of(clock.instant().minus(Duration.ofDays(90)));
        instances.beat("api-1", "api", clock.instant());
        instances.beat("api-2", "api", clock.instant());
        SinkHealth failing = new SinkHealth("postgres-audit");
        for (int i = 0; i < 3; i++) {
            failing.failed("database down");
        }

        Report report = doctor(
                        healthy()
                                .bootstrapToken("changeme")
                                .oauth(OAuthConfig.builder()
                                        .issuer("http://warden.example.com")
                                        .allowAnonymousRegistration(true)
                                        .build())
                                .topics(Topics.defaults())
                                .webhooks(WebhooksConfig.builder().build())
                                .rateLimit(RateLimitConfig.builder().build())
                                .users(UsersConfig.builder().argon2(1024, 1, 1).build()),
                        List.of(failing, new SinkHealth("webhooks")))
                .examine();

        assertThat(ids(report))
                .containsExactly(
                        "bootstrap-token-weak",
                        "issuer-not-https",
                        "sink-failing",
                        "anonymous-registration-on",
                        "password-hash-weak",
                        "rate-limit-store-memory-multi-instance",
                        "signing-key-stale",
                        "topic-replication-factor-1",
                        "webhook-secrets-unencrypted",
                        "mcp-registration-open");
        assertThat(report.counts())
                .containsEntry(Severity.CRITICAL, 3L)
                .containsEntry(Severity.WARNING, 6L)
                .containsEntry(Severity.INFO, 1L);
    }

    @Test
    void theReportIsTheDocumentedJsonAndNeverContainsTheBootstrapToken() {
        String token = "changeme-changeme";
        Report report = doctor(healthy().bootstrapToken(token)).examine();

        ObjectNode json = DoctorRoutes.json(report);
        String body = json.toString();

        assertThat(body).doesNotContain(token).doesNotContain("changeme");
        assertThat(Json.parseTimestamp(json.get("generatedAt").asText()))
                .isEqualTo(report.generatedAt().truncatedTo(ChronoUnit.MILLIS));
        JsonNode finding = json.get("findings").get(0);
        assertThat(finding.get("id").asText()).isEqualTo("bootstrap-token-weak");
        assertThat(finding.get("severity").asText()).isEqualTo("critical");
        assertThat(finding.fieldNames()).toIterable().containsExactly("id", "severity", "title", "detail", "fix");
        assertThat(json.get("counts").get("critical").asLong()).isEqualTo(1);
        assertThat(json.get("counts").get("warning").asLong()).isZero();
        assertThat(json.get("counts").get("info").asLong()).isZero();
    }

    @Test
    void theSettingsNeverHoldTheBootstrapToken() {
        String token = "changeme-changeme";

        DoctorSettings settings =
                DoctorSettings.from(healthy().bootstrapToken(token).build());

        assertThat(settings.toString()).doesNotContain(token).doesNotContain("changeme");
        assertThat(settings.bootstrapToken().weak()).isTrue();
    }
}
