package dev.warden.api.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ConfigLoaderTest {
    @Test
    void environmentVariablesMapToKebabCaseKeysAndOverrideDefaults() {
        WardenConfig config = WardenConfig.from(ConfigLoader.load(
                Optional.empty(),
                Map.of(
                        "WARDEN_KAFKA_BOOTSTRAP", "kafka:9092",
                        "WARDEN_SERVER_MAX__BODY__BYTES", "2048",
                        "WARDEN_BOOTSTRAP_TOKEN", "secret-token",
                        "WARDEN_ROLES", "api, sinks",
                        "WARDEN_KAFKA_TOPIC__PREFIX", "staging.")));

        assertThat(config.kafka().bootstrap()).hasValue("kafka:9092");
        assertThat(config.server().maxBodyBytes()).isEqualTo(2048);
        assertThat(config.bootstrapToken()).hasValue("secret-token");
        assertThat(config.roles()).containsExactlyInAnyOrder(Role.API, Role.SINKS);
        assertThat(config.kafka().topics().events()).isEqualTo("staging.warden.events");
        assertThat(config.server().port()).isEqualTo(8080);
        assertThat(config.toString()).doesNotContain("secret-token");
    }

    @Test
    void theMirrorsCommitIntervalIsItsOwnAndMustBePositive() {
        WardenConfig defaults = WardenConfig.from(ConfigLoader.load(Optional.empty(), Map.of()));
        assertThat(defaults.streams().mirrorCommitIntervalMs()).isEqualTo(20);
        assertThat(defaults.streams().pipelineCommitIntervalMs()).isEqualTo(100);

        WardenConfig set = WardenConfig.from(
                ConfigLoader.load(Optional.empty(), Map.of("WARDEN_STREAMS_MIRROR__COMMIT__INTERVAL__MS", "7")));
        assertThat(set.streams().mirrorCommitIntervalMs()).isEqualTo(7);
        assertThat(set.toBuilder().build().streams().mirrorCommitIntervalMs())
                .as("kept by toBuilder")
                .isEqualTo(7);

        assertThatThrownBy(() -> WardenConfig.from(ConfigLoader.load(
                        Optional.empty(), Map.of("WARDEN_STREAMS_MIRROR__COMMIT__INTERVAL__MS", "0"))))
                .hasMessageContaining("warden.streams.mirror-commit-interval-ms");
    }

    @Test
    void theBackgroundFetchWaitDefaultsTo100MsAndCanBeSet() {
        WardenConfig defaults = WardenConfig.from(ConfigLoader.load(Optional.empty(), Map.of()));
        assertThat(defaults.streams().backgroundFetchWaitMs())
                .as("unset: the default applies")
                .isZero();
        assertThat(defaults.streams().backgroundFetchWait()).isEqualTo(java.time.Duration.ofMillis(100));

        WardenConfig set = WardenConfig.from(
                ConfigLoader.load(Optional.empty(), Map.of("WARDEN_STREAMS_BACKGROUND__FETCH__WAIT__MS", "1000")));
        assertThat(set.streams().backgroundFetchWait()).isEqualTo(java.time.Duration.ofSeconds(1));
        assertThat(set.toBuilder().build().streams().backgroundFetchWaitMs())
                .as("kept by toBuilder")
                .isEqualTo(1000);
        assertThat(defaults.streams().quotaFetchWait())
                .as("the quota application waits 500 ms, unless the background wait is longer")
                .isEqualTo(java.time.Duration.ofMillis(500));
        assertThat(set.streams().quotaFetchWait()).isEqualTo(java.time.Duration.ofSeconds(1));

        assertThatThrownBy(() -> WardenConfig.from(ConfigLoader.load(
                        Optional.empty(), Map.of("WARDEN_STREAMS_BACKGROUND__FETCH__WAIT__MS", "-1"))))
                .hasMessageContaining("warden.streams.background-fetch-wait-ms");
    }

    @Test
    void theGroupRetryBackoffDefaultsToKafkasAndCanBeSet() {
        WardenConfig defaults = WardenConfig.from(ConfigLoader.load(Optional.empty(), Map.of()));
        assertThat(defaults.streams().groupRetryBackoffMs())
                .as("unset: the default applies")
                .isZero();
        assertThat(defaults.streams().groupRetryBackoff()).isEqualTo(java.time.Duration.ofMillis(100));

        WardenConfig set = WardenConfig.from(
                ConfigLoader.load(Optional.empty(), Map.of("WARDEN_STREAMS_GROUP__RETRY__BACKOFF__MS", "1000")));
        assertThat(set.streams().groupRetryBackoff()).isEqualTo(java.time.Duration.ofSeconds(1));
        assertThat(set.toBuilder().build().streams().groupRetryBackoffMs())
                .as("kept by toBuilder")
                .isEqualTo(1000);

        assertThatThrownBy(() -> WardenConfig.from(
                        ConfigLoader.load(Optional.empty(), Map.of("WARDEN_STREAMS_GROUP__RETRY__BACKOFF__MS", "-1"))))
                .hasMessageContaining("warden.streams.group-retry-backoff-ms");
    }

    @Test
    void theGroupHeartbeatIntervalDefaultsToKafkasAndIsBounded() {
        WardenConfig defaults = WardenConfig.from(ConfigLoader.load(Optional.empty(), Map.of()));
        assertThat(defaults.streams().groupHeartbeatIntervalMs())
                .as("unset: the default applies")
                .isZero();
        assertThat(defaults.streams().groupHeartbeatInterval()).isEqualTo(java.time.Duration.ofSeconds(3));

        WardenConfig set = WardenConfig.from(
                ConfigLoader.load(Optional.empty(), Map.of("WARDEN_STREAMS_GROUP__HEARTBEAT__INTERVAL__MS", "10000")));
        assertThat(set.streams().groupHeartbeatInterval()).isEqualTo(java.time.Duration.ofSeconds(10));
        assertThat(set.toBuilder().build().streams().groupHeartbeatIntervalMs())
                .as("kept by toBuilder")
                .isEqualTo(10_000);

        for (String wrong : new String[] {"-1", "15001"}) {
            assertThatThrownBy(() -> WardenConfig.from(ConfigLoader.load(
                            Optional.empty(), Map.of("WARDEN_STREAMS_GROUP__HEARTBEAT__INTERVAL__MS", wrong))))
                    .as(wrong)
                    .hasMessageContaining("warden.streams.group-heartbeat-interval-ms");
        }
    }

    @Test
    void unknownRoleIsRejectedWithTheKeyNamed() {
        assertThatThrownBy(
                        () -> WardenConfig.from(ConfigLoader.load(Optional.empty(), Map.of("WARDEN_ROLES", "api,web"))))
                .hasMessageContaining("warden.roles")
                .hasMessageContaining("web");
    }

    @Test
    void defaultsComeFromTheBuiltInFile() {
        WardenConfig config = WardenConfig.from(ConfigLoader.load(Optional.empty(), Map.of()));
        assertThat(config.roles()).containsExactlyInAnyOrder(Role.values());
        assertThat(config.kafka().topics().audit()).isEqualTo("warden.audit");
        assertThat(config.kafka().topics().auditPartitions()).isEqualTo(12);
        assertThat(config.postgres().url()).isEmpty();
    }

    @Test
    void auditSinksAreReadFromTheConfigFileAndBadEntriesNameTheirKey(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws java.io.IOException {
        java.nio.file.Path file = dir.resolve("warden.yaml");
        java.nio.file.Files.writeString(file, """
                warden:
                  sinks:
                    audit:
                      - type: splunk-hec
                        url: https://splunk.example:8088
                        secret: hec-token
                        options:
                          index: security
                      - type: otlp-logs
                        url: http://collector:4318
                """);
        WardenConfig config = WardenConfig.from(ConfigLoader.load(Optional.of(file), Map.of()));
        assertThat(config.auditSinks()).hasSize(2);
        assertThat(config.auditSinks().getFirst().options()).containsEntry("index", "security");
        assertThat(config.toString()).doesNotContain("hec-token");

        java.nio.file.Files.writeString(file, "warden:\n  sinks:\n    audit:\n      - type: syslog\n        url: x\n");
        assertThatThrownBy(() -> WardenConfig.from(ConfigLoader.load(Optional.of(file), Map.of())))
                .hasMessageContaining("warden.sinks.audit[0].type");
    }
}
