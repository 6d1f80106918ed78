package dev.warden.sinks.ssf;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One security signal about to become a Security Event Token: its event type ({@link SignalTypes}), its subject,
 * the event's members, whose stream may carry it ({@code ownerUser}: the person whose agent or account it is), and
 * the Warden event it comes from ({@code sourceId}, which makes its {@code jti} stable across redeliveries).
 */
public record Signal(
        String type,
        Subject subject,
        Map<String, Object> members,
        Optional<String> ownerUser,
        Instant at,
        String sourceId) {
    public Signal {
        members = Map.copyOf(members);
    }

    /**
     * A subject: an agent or a person, named in a SET as {@code iss_sub} (RFC 9493), the issuer and the {@code sub}
     * of the access tokens Warden gives it, so a receiver can match the tokens it holds.
     */
    public record Subject(String id) {
        /** The subject identifier as a SET's {@code sub_id} carries it. */
        public Map<String, Object> asSubId(String issuer) {
            Map<String, Object> subId = new LinkedHashMap<>();
            subId.put("format", "iss_sub");
            subId.put("iss", issuer);
            subId.put("sub", id);
            return subId;
        }
    }
}
