package dev.warden.api.audit;

import dev.warden.pipeline.contract.AuditResult;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Filters of {@code GET /audit} (SPEC: Audit endpoints), all applied in SQL before the limit.
 *
 * @param actions any of these actions (empty: any)
 */
public record AuditQuery(
        Optional<String> agentId,
        Optional<String> userId,
        Optional<Instant> since,
        Optional<Instant> until,
        List<String> actions,
        Optional<AuditResult> result,
        int limit,
        int offset) {
    /** {@code limit} when the request gives none. */
    public static final int DEFAULT_LIMIT = 100;
    /** Largest {@code limit} accepted. */
    public static final int MAX_LIMIT = 1000;

    public AuditQuery {
        actions = List.copyOf(actions);
    }
}
