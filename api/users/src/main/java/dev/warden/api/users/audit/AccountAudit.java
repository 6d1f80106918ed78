package dev.warden.api.users.audit;

import dev.warden.authorizer.domain.Ids;
import dev.warden.authorizer.domain.UserId;
import dev.warden.pipeline.contract.AuditEntry;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The audit entry of a change a user makes to their own account (a factor enrolled or removed, the password
 * changed): an administrative action, {@code admin.account.<what>}, stored with the change like every other
 * ({@code AuditEntry.ADMINISTRATIVE_PREFIX}). Resource {@code user:<id>/<kind>:<id>}; parameters
 * {@code {actor: {kind: user, id}, target: {kind, id}}}. Never a secret, a code or a hash.
 */
public final class AccountAudit {
    private AccountAudit() {}

    /** {@code admin.account.<what>} by {@code user} on their {@code targetKind} {@code targetId}. */
    public static AuditEntry entry(String what, UserId user, String targetKind, String targetId, Instant at) {
        Map<String, Object> parameters = new LinkedHashMap<>();
        parameters.put("actor", Map.of("kind", "user", "id", user.value()));
        parameters.put("target", Map.of("kind", targetKind, "id", targetId));
        return AuditEntry.administrative(
                Ids.mint("aud"),
                "account." + what,
                "",
                Optional.of(user.value()),
                user.value(),
                "user:" + user.value() + "/" + targetKind + ":" + targetId,
                parameters,
                at);
    }
}
