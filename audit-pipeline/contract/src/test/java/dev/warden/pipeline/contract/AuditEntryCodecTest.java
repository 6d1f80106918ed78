package dev.warden.pipeline.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AuditEntryCodecTest {
    @Test
    void entryRoundTripsWithEveryField() {
        AuditEntry entry = new AuditEntry(
                "aud_1",
                "agt_1",
                Optional.of("alice"),
                "agt_1",
                "read",
                "mcp:github:x",
                Map.of("repo", "warden", "token", "[REDACTED]"),
                AuditResult.RATE_LIMITED,
                Optional.of("RATE_LIMITED"),
                0.25,
                0,
                Instant.parse("2026-01-01T00:00:00.123Z"),
                Optional.of("10.0.0.1"),
                Optional.empty(),
                Optional.empty(),
                Optional.empty());

        assertThat(AuditEntryCodec.decode(AuditEntryCodec.encode(entry))).isEqualTo(entry);
        assertThat(new String(AuditEntryCodec.encode(entry), StandardCharsets.UTF_8))
                .contains("\"result\":\"rate_limited\"", "\"timestamp\":\"2026-01-01T00:00:00.123Z\"");
    }

    @Test
    void aDelegationChainRoundTripsAndIsAbsentWhenEmpty() {
        AuditEntry chained = new AuditEntry(
                "aud_2",
                "agt_c",
                Optional.of("alice"),
                "agt_c",
                "read",
                "mcp:github:x",
                Map.of(),
                AuditResult.ALLOWED,
                Optional.empty(),
                0.25,
                0,
                Instant.parse("2026-01-01T00:00:00.123Z"),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                java.util.List.of("dlg_bc", "dlg_ab"));
        assertThat(AuditEntryCodec.decode(AuditEntryCodec.encode(chained))).isEqualTo(chained);
        assertThat(new String(AuditEntryCodec.encode(chained), StandardCharsets.UTF_8))
                .contains("\"delegationChain\":[\"dlg_bc\",\"dlg_ab\"]");
        assertThat(AuditEntryCodec.toJson(chained).get("delegationChain").size())
                .isEqualTo(2);
        AuditEntry direct = chained.withCallerIp("");
        assertThat(direct.delegationChain()).containsExactly("dlg_bc", "dlg_ab");
        AuditEntry own =
                AuditEntry.administrative("aud_3", "x", "", Optional.empty(), "admin", "r", Map.of(), Instant.EPOCH);
        assertThat(new String(AuditEntryCodec.encode(own), StandardCharsets.UTF_8))
                .doesNotContain("delegationChain");
        assertThatThrownBy(
                        () -> AuditEntryCodec.decode(new String(AuditEntryCodec.encode(chained), StandardCharsets.UTF_8)
                                .replace("[\"dlg_bc\",\"dlg_ab\"]", "[7]")
                                .getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void garbageIsRejected() {
        assertThatThrownBy(() -> AuditEntryCodec.decode("{\"id\":1}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void treeAndBytesAreTheSameObject() throws Exception {
        AuditEntry entry = new AuditEntry(
                "aud_2",
                "agt_2",
                Optional.empty(),
                "admin",
                "write",
                "db:x",
                Map.of("n", new java.math.BigDecimal("1.50"), "list", java.util.List.of(1, "a")),
                AuditResult.ALLOWED,
                Optional.empty(),
                0.125,
                3,
                Instant.parse("2026-01-01T00:00:00.123Z"),
                Optional.empty(),
                Optional.of("curl/8"),
                Optional.empty(),
                Optional.empty());

        assertThat(Json.mapper().writeValueAsString(AuditEntryCodec.toJson(entry)))
                .isEqualTo(new String(AuditEntryCodec.encode(entry), StandardCharsets.UTF_8));
        assertThat(AuditEntryCodec.toJson(entry).get("durationMs").isDouble()).isTrue();
        assertThat(AuditEntryCodec.toJson(entry).get("userId").textValue()).isEqualTo(""); // SPEC: always a string
        assertThat(AuditEntryCodec.toJson(entry).at("/context/userAgent").asText())
                .isEqualTo("curl/8");
    }

    @Test
    void missingFieldsWrongTypesAndTrailingContentAreRejected() {
        String ok = new String(
                AuditEntryCodec.encode(new AuditEntry(
                        "aud_3",
                        "agt_3",
                        Optional.empty(),
                        "admin",
                        "read",
                        "a:b",
                        Map.of(),
                        AuditResult.DENIED,
                        Optional.of("X"),
                        1,
                        0,
                        Instant.parse("2026-01-01T00:00:00.123Z"),
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty())),
                StandardCharsets.UTF_8);
        assertThat(AuditEntryCodec.decode(ok.getBytes(StandardCharsets.UTF_8)).reason())
                .contains("X");
        for (String bad : new String[] {
            ok.replace("\"tokensCost\":0,", ""),
            ok.replace("\"aud_3\"", "3"),
            ok + "{}",
            ok.replace("\"denied\"", "\"maybe\""),
            "[]"
        }) {
            assertThatThrownBy(() -> AuditEntryCodec.decode(bad.getBytes(StandardCharsets.UTF_8)))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
