package dev.warden.api.users;

import dev.warden.authorizer.domain.UserId;
import dev.warden.pipeline.contract.CleanText;
import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.Json;
import dev.warden.pipeline.contract.StreamEvent;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code data} of {@code auth.*} events (documented in docs/events.md). Never a password, a token or a
 * hash. {@code auth.failed} carries only what the caller sent (the username as typed) and where from: it
 * has no user id and the same shape and reason whether the username exists, the password was wrong or the
 * account is locked, so the event stream cannot be used to enumerate accounts.
 */
final class AuthEvents {
    /** The one reason {@code auth.failed} gives. */
    static final String INVALID_CREDENTIALS = "invalid_credentials";

    private AuthEvents() {}

    /** {@code auth.signin}: {@code {"user": {id, username}, "session": {id, expiresAt}, "method", "ip"}}. */
    static StreamEvent.Draft signIn(User user, Session session, String method, String ip, Instant now) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("user", Map.of("id", user.id().value(), "username", user.username()));
        data.put("session", Map.of("id", session.id(), "expiresAt", Json.timestamp(session.expiresAt())));
        data.put("method", method);
        data.put("ip", ip);
        return new StreamEvent.Draft(
                EventType.AUTH_SIGNIN,
                now,
                data,
                Optional.empty(),
                Optional.of(user.id().value()));
    }

    /** {@code auth.signout}: {@code {"user": {id}, "session": {id}, "ip"}}. */
    static StreamEvent.Draft signOut(UserId user, String sessionId, String ip, Instant now) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("user", Map.of("id", user.value()));
        data.put("session", Map.of("id", sessionId));
        data.put("ip", ip);
        return new StreamEvent.Draft(EventType.AUTH_SIGNOUT, now, data, Optional.empty(), Optional.of(user.value()));
    }

    /**
     * {@code auth.locked}: {@code {"user": {id}, "lockedUntil", "ip"}}, when a failed sign-in locks the account. Only
     * the person and the administrator see it (its user id is the account's), so it enumerates nothing.
     */
    static StreamEvent.Draft locked(UserId user, Instant until, String ip, Instant now) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("user", Map.of("id", user.value()));
        data.put("lockedUntil", Json.timestamp(until));
        data.put("ip", ip);
        return new StreamEvent.Draft(EventType.AUTH_LOCKED, now, data, Optional.empty(), Optional.of(user.value()));
    }

    /** {@code auth.password_reset}: {@code {"user": {id}, "ip"}}, when a person set a new password through e-mail. */
    static StreamEvent.Draft passwordReset(UserId user, String ip, Instant now) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("user", Map.of("id", user.value()));
        data.put("ip", ip);
        return new StreamEvent.Draft(
                EventType.AUTH_PASSWORD_RESET, now, data, Optional.empty(), Optional.of(user.value()));
    }

    /** {@code auth.failed}: {@code {"username": as sent, "reason": "invalid_credentials", "ip"}}. */
    static StreamEvent.Draft failed(String usernameAsSent, String ip, Instant now) {
        return failed(usernameAsSent, INVALID_CREDENTIALS, ip, now);
    }

    /**
     * {@code auth.failed} with {@code reason}: {@code totp_invalid} for a wrong second factor after a right password
     * (the username is then the account's, as the password already proved it).
     */
    static StreamEvent.Draft failed(String username, String reason, String ip, Instant now) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("username", CleanText.scrub(username));
        data.put("reason", reason);
        data.put("ip", ip);
        return new StreamEvent.Draft(EventType.AUTH_FAILED, now, data, Optional.empty(), Optional.empty());
    }
}
