package dev.warden.sinks.external;

import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditResult;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/** Audit entry fixtures: fixed ids and times, so that wire formats can be checked exactly. */
final class TestAudit {
    /** The timestamp of {@link #anEntry()}: 2026-01-02T03:04:05.123Z. */
    static final Instant DECIDED_AT = Instant.parse("2026-01-02T03:04:05.123Z");

    private TestAudit() {}

    /** An allowed call with every optional field present. */
    static AuditEntry anEntry() {
        return new AuditEntry(
                "aud_0001",
                "agt_triage",
                Optional.of("alice"),
                "agt_triage",
                "read",
                "mcp:github:repo",
                Map.of("repo", "warden", "limit", 10),
                AuditResult.ALLOWED,
                Optional.empty(),
                12.5,
                3,
                DECIDED_AT,
                Optional.of("203.0.113.7"),
                Optional.of("triage-bot/1.0"),
                Optional.empty(),
                Optional.empty());
    }

    /** A denied call by an unknown agent: no user, a reason, no client context, zero duration and cost. */
    static AuditEntry aDeniedEntry() {
        return new AuditEntry(
                "aud_0002",
                "agt_unknown",
                Optional.empty(),
                "agt_unknown",
                "write",
                "mcp:github:repo",
                Map.of(),
                AuditResult.DENIED,
                Optional.of("no_permission"),
                0.0,
                0,
                DECIDED_AT.plusMillis(7),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty());
    }

    /** A rate-limited call. */
    static AuditEntry aRateLimitedEntry() {
        return new AuditEntry(
                "aud_0003",
                "agt_triage",
                Optional.of("alice"),
                "agt_triage",
                "read",
                "mcp:github:repo",
                Map.of(),
                AuditResult.RATE_LIMITED,
                Optional.of("rate_limited"),
                0.4,
                0,
                DECIDED_AT.plusSeconds(1),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty());
    }
}
