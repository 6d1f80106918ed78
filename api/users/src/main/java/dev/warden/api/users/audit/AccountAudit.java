package dev.warden.api.users.audit;

import dev.warden.authorizer.domain.Ids;
import dev.warden.authorizer.domain.UserId;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.StreamEvent;
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

    /**
     * The audit entry of a sign-in event, so that sign-ins reach the audit log and the SIEM (OCSF Authentication):
     * {@code auth.signin} is {@code admin.account.session.started} (parameters add the method), {@code auth.signout}
     * {@code admin.account.session.ended}, {@code auth.locked} {@code admin.account.locked}, and {@code auth.failed}
     * {@code admin.account.signin.failed}, which names no account (as the event: the username as sent and the one
     * reason), so only the administrator reads it. Each carries the address the attempt came from. Other events: none.
     */
    public static Optional<AuditEntry> ofAuthEvent(StreamEvent.Draft event) {
        Map<String, Object> data = event.data();
        String ip = data.get("ip") instanceof String a ? a : "";
        Optional<UserId> user = event.userId().map(UserId::of);
        return switch (event.type()) {
            case AUTH_SIGNIN ->
                user.map(u -> entry(
                                "session.started",
                                u,
                                "session",
                                nested(data, "session"),
                                Map.of("method", String.valueOf(data.get("method"))),
                                event.timestamp())
                        .withCallerIp(ip));
            case AUTH_SIGNOUT ->
                user.map(u -> entry("session.ended", u, "session", nested(data, "session"), Map.of(), event.timestamp())
                        .withCallerIp(ip));
            case AUTH_LOCKED ->
                user.map(u -> entry(
                                "locked",
                                u,
                                "user",
                                u.value(),
                                Map.of("lockedUntil", String.valueOf(data.get("lockedUntil"))),
                                event.timestamp())
                        .withCallerIp(ip));
            case AUTH_FAILED -> {
                Map<String, Object> parameters = new LinkedHashMap<>();
                parameters.put("username", String.valueOf(data.get("username")));
                parameters.put("reason", String.valueOf(data.get("reason")));
                yield Optional.of(AuditEntry.administrative(
                                Ids.mint("aud"),
                                "account.signin.failed",
                                "",
                                Optional.empty(),
                                "anonymous",
                                "sign-in",
                                parameters,
                                event.timestamp())
                        .withCallerIp(ip));
            }
            default -> Optional.empty();
        };
    }

    private static String nested(Map<String, Object> data, String field) {
        return data.get(field) instanceof Map<?, ?> m && m.get("id") instanceof String id ? id : "";
    }

    /** {@code admin.account.<what>} by {@code user} on their {@code targetKind} {@code targetId}. */
    public static AuditEntry entry(String what, UserId user, String targetKind, String targetId, Instant at) {
        return entry(what, user, targetKind, targetId, Map.of(), at);
    }

    /** As {@link #entry(String, UserId, String, String, Instant)}, with {@code extra} parameters. */
    public static AuditEntry entry(
            String what, UserId user, String targetKind, String targetId, Map<String, Object> extra, Instant at) {
        Map<String, Object> parameters = new LinkedHashMap<>(extra);
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
