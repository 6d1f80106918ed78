package dev.warden.sinks.ssf;

import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.StreamEvent;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which Warden events are security signals, and how (docs/shared-signals.md has the table). An agent revoked or
 * suspended: CAEP {@code session-revoked}; its token rotated: CAEP {@code credential-change}; its permissions or
 * expiry changed, or a delegation to it made or revoked: CAEP {@code token-claims-change}; a person's account
 * locked: RISC {@code account-disabled}; a person's password reset through e-mail: RISC {@code recovery-activated}.
 * Every other event is none. Pure: the same event always maps to the same signals.
 */
public final class SignalMapper {
    /** The credential type of an agent's token (CAEP lets transmitter and receiver agree on other types). */
    static final String AGENT_CREDENTIAL = "api-key";

    private SignalMapper() {}

    /** The signals of {@code event}; empty for an event that is none. */
    public static List<Signal> signals(StreamEvent event) {
        return switch (event.type()) {
            case AGENT_REVOKED -> agent(event, SignalTypes.SESSION_REVOKED, sessionRevoked(event, "agent revoked"));
            case AGENT_SUSPENDED -> agent(event, SignalTypes.SESSION_REVOKED, sessionRevoked(event, "agent suspended"));
            case AGENT_ROTATED -> agent(event, SignalTypes.CREDENTIAL_CHANGE, credentialRotated(event));
            case AGENT_UPDATED -> agentUpdated(event);
            case DELEGATION_CREATED -> delegation(event, "created");
            case DELEGATION_REVOKED -> delegation(event, "revoked");
            case AUTH_LOCKED -> person(event, SignalTypes.ACCOUNT_DISABLED, base(event, "system"));
            case AUTH_PASSWORD_RESET -> person(event, SignalTypes.RECOVERY_ACTIVATED, base(event, "user"));
            default -> List.of();
        };
    }

    /** True when {@code event}'s type can map to a signal (cheap: no payload read). */
    public static boolean mayMap(EventType type) {
        return switch (type) {
            case AGENT_REVOKED,
                    AGENT_SUSPENDED,
                    AGENT_ROTATED,
                    AGENT_UPDATED,
                    DELEGATION_CREATED,
                    DELEGATION_REVOKED,
                    AUTH_LOCKED,
                    AUTH_PASSWORD_RESET -> true;
            default -> false;
        };
    }

    private static List<Signal> agent(StreamEvent event, String type, Map<String, Object> members) {
        return event.agentId()
                .map(id -> List.of(new Signal(
                        type, new Signal.Subject(id), members, event.userId(), event.timestamp(), event.id())))
                .orElse(List.of());
    }

    private static List<Signal> person(StreamEvent event, String type, Map<String, Object> members) {
        return event.userId()
                .map(id -> List.of(new Signal(
                        type, new Signal.Subject(id), members, event.userId(), event.timestamp(), event.id())))
                .orElse(List.of());
    }

    private static Map<String, Object> sessionRevoked(StreamEvent event, String reason) {
        Map<String, Object> members = base(event, initiator(event));
        members.put("reason_admin", Map.of("en", reason));
        return members;
    }

    private static Map<String, Object> credentialRotated(StreamEvent event) {
        Map<String, Object> members = base(event, initiator(event));
        members.put("credential_type", AGENT_CREDENTIAL);
        members.put("change_type", "update");
        return members;
    }

    /** Permissions or expiry changed: the claims of the agent's tokens change. A rename or new metadata: none. */
    private static List<Signal> agentUpdated(StreamEvent event) {
        List<?> changed = event.data().get("changed") instanceof List<?> list ? list : List.of();
        Map<String, Object> claims = new LinkedHashMap<>();
        if (changed.contains("permissions")) {
            claims.put("warden_permissions", "changed");
        }
        if (changed.contains("expiresAt")) {
            Object expiresAt = agentField(event, "expiresAt");
            claims.put("warden_expires_at", expiresAt == null ? "none" : expiresAt);
        }
        if (claims.isEmpty()) {
            return List.of();
        }
        Map<String, Object> members = base(event, initiator(event));
        members.put("claims", claims);
        return agent(event, SignalTypes.TOKEN_CLAIMS_CHANGE, members);
    }

    /** A delegation made or revoked changes what the delegate's tokens may do: the delegate is the subject. */
    private static List<Signal> delegation(StreamEvent event, String change) {
        if (!(event.data().get("delegation") instanceof Map<?, ?> d) || !(d.get("toAgent") instanceof String to)) {
            return List.of();
        }
        Map<String, Object> delegation = new LinkedHashMap<>();
        delegation.put("id", d.get("id"));
        delegation.put("from", d.get("fromAgent"));
        delegation.put("change", change);
        delegation.put("permissions", d.get("permissions"));
        Map<String, Object> members = base(event, "admin");
        members.put("claims", Map.of("warden_delegation", delegation));
        return List.of(new Signal(
                SignalTypes.TOKEN_CLAIMS_CHANGE,
                new Signal.Subject(to),
                members,
                event.userId(),
                event.timestamp(),
                event.id()));
    }

    private static Map<String, Object> base(StreamEvent event, String initiatingEntity) {
        Map<String, Object> members = new LinkedHashMap<>();
        members.put("event_timestamp", event.timestamp().getEpochSecond());
        members.put("initiating_entity", initiatingEntity);
        return members;
    }

    /**
     * CAEP's {@code initiating_entity}: the agent itself ({@code user}: the subject acted), the administrator or its
     * owner ({@code admin}), or nobody named ({@code system}).
     */
    private static String initiator(StreamEvent event) {
        if (!(event.data().get("actor") instanceof Map<?, ?> actor)) {
            return "system";
        }
        Object id = actor.get("id");
        if (id != null && event.agentId().map(id::equals).orElse(false)) {
            return "user";
        }
        return id == null ? "system" : "admin";
    }

    private static Object agentField(StreamEvent event, String field) {
        return event.data().get("agent") instanceof Map<?, ?> agent ? agent.get(field) : null;
    }

    /** The subject a receiver names in {@code subjects:add} and {@code subjects:remove}, as stored. */
    public static Optional<String> subjectKey(Map<String, Object> subject, String issuer) {
        Object format = subject.get("format");
        if ("opaque".equals(format) && subject.get("id") instanceof String id && subject.size() == 2) {
            return Optional.of(id);
        }
        if ("iss_sub".equals(format)
                && issuer.equals(subject.get("iss"))
                && subject.get("sub") instanceof String sub
                && subject.size() == 3) {
            return Optional.of(sub);
        }
        return Optional.empty();
    }
}
