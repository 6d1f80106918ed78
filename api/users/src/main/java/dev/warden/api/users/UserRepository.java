package dev.warden.api.users;

import dev.warden.authorizer.domain.UserId;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.StreamEvent;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Storage of users and their sessions. Every change commits together with its events (the outbox), or
 * not at all. Implementations are thread-safe.
 */
public interface UserRepository {
    /** What sign-up stores. */
    record NewUser(User user, Username username, Optional<String> emailKey, String passwordHash) {}

    /**
     * Stores a new user and their first session.
     *
     * @throws AlreadyTakenException when the username (or e-mail) is taken
     */
    void create(NewUser user, Session session, byte[] tokenHash, Origin origin, List<StreamEvent.Draft> events);

    /** The account whose username lookup key is {@code usernameKey}. */
    Optional<Account> findAccount(String usernameKey);

    /** The user with this id. */
    Optional<User> find(UserId id);

    /** A successful sign-in: clears failures, optionally replaces the hash (new parameters), adds a session. */
    void signedIn(
            UserId id,
            Optional<String> newPasswordHash,
            Session session,
            byte[] tokenHash,
            Origin origin,
            List<StreamEvent.Draft> events);

    /**
     * A failed sign-in. When {@code countAgainst} names a user, counts the failure and locks the account
     * once {@code lockout.maxFailures} failures followed each other within {@code lockout.window}.
     */
    void signInFailed(
            Optional<UserId> countAgainst, Instant now, UsersConfig.Lockout lockout, List<StreamEvent.Draft> events);

    /**
     * Renames the user.
     *
     * @throws AlreadyTakenException when another user holds the name
     */
    Optional<User> changeUsername(UserId id, Username username, Instant now);

    /** The session whose token has this hash, whatever its state. */
    Optional<Session> findSession(byte[] tokenHash);

    /** The session with this id, whatever its state. */
    Optional<Session> findSessionById(String id);

    /** Stores a sliding refresh. */
    void refreshSession(Session refreshed);

    /** Revokes the session; true when it was live. Events are stored only when it was. */
    boolean revokeSession(String id, Instant at, List<StreamEvent.Draft> events);

    /** A live session and where it was signed in from. */
    record ListedSession(Session session, Optional<String> ip, Optional<String> userAgent) {}

    /** {@code user}'s sessions still live at {@code now}, the most recently used first. */
    List<ListedSession> liveSessions(UserId user, Instant now);

    /** Revokes {@code user}'s session {@code id}, with {@code events}; false when it is not theirs or not live. */
    boolean revokeSessionOf(UserId user, String id, Instant at, List<StreamEvent.Draft> events);

    /**
     * Revokes every live session of {@code user} but {@code keep}, each with its {@code auth.signout} event (from
     * {@code ip}); returns the ids revoked.
     */
    List<String> revokeOtherSessions(UserId user, String keep, Instant at, String ip);

    /** The stored password hash of {@code user}. */
    Optional<String> passwordHash(UserId user);

    /**
     * Stores {@code newHash} as {@code user}'s password, revokes every other live session (each with its
     * {@code auth.signout} event, from {@code ip}) and stores {@code audit}, in one transaction; returns the ids of
     * the sessions revoked.
     */
    List<String> changePassword(
            UserId user, String newHash, String keepSession, Instant at, AuditEntry audit, String ip);
}
