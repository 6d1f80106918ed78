package dev.warden.sinks.ssf;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The claims of a Security Event Token as SSF 1.0 profiles RFC 8417: {@code iss}, {@code aud} (the stream's),
 * {@code jti}, {@code iat}, {@code sub_id} (the subject, RFC 9493) and {@code events}, exactly one event.
 */
public final class SecurityEventTokens {
    private SecurityEventTokens() {}

    /** The claims of one SET. */
    public static Map<String, Object> claims(
            String issuer,
            String audience,
            String jti,
            Instant issuedAt,
            Map<String, Object> subId,
            String eventType,
            Map<String, Object> members) {
        Map<String, Object> claims = new LinkedHashMap<>();
        claims.put("iss", issuer);
        claims.put("aud", audience);
        claims.put("jti", jti);
        claims.put("iat", issuedAt.getEpochSecond());
        claims.put("sub_id", subId);
        claims.put("events", Map.of(eventType, members));
        return claims;
    }

    /**
     * The {@code jti} of {@code signal}'s token on stream {@code streamId}: the same however often the event is read
     * again (a redelivery after a crash is a duplicate the receiver can drop), different for every stream and
     * signal.
     */
    public static String jti(String streamId, Signal signal) {
        String name = streamId + "\n" + signal.sourceId() + "\n" + signal.type() + "\n"
                + signal.subject().id();
        return UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)).toString();
    }
}
