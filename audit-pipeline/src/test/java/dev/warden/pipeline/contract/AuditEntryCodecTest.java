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
        AuditEntry entry = new AuditEntry("aud_1", "agt_1", Optional.of("alice"), "agt_1", "read", "mcp:github:x",
                Map.of("repo", "warden", "token", "[REDACTED]"), AuditResult.RATE_LIMITED, Optional.of("RATE_LIMITED"),
                0.25, 0, Instant.parse("2026-01-01T00:00:00.123Z"), Optional.of("10.0.0.1"), Optional.empty());

        assertThat(AuditEntryCodec.decode(AuditEntryCodec.encode(entry))).isEqualTo(entry);
        assertThat(new String(AuditEntryCodec.encode(entry), StandardCharsets.UTF_8))
                .contains("\"result\":\"rate_limited\"", "\"timestamp\":\"2026-01-01T00:00:00.123Z\"");
    }

    @Test
    void garbageIsRejected() {
        assertThatThrownBy(() -> AuditEntryCodec.decode("{\"id\":1}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
