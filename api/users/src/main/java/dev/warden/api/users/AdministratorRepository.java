package dev.warden.api.users;

import dev.warden.authorizer.domain.UserId;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.StreamEvent;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Where administrators who are people are kept: the setup token, the flag on users, administrator sessions. */
public interface AdministratorRepository {
    /** True when some user is an administrator. */
    boolean anyAdministrator();

    /**
     * Stores a new setup token, dropping the unclaimed ones, unless a claimed one is still live (a setup is under way:
     * its user may complete it).
     *
     * @return false when a setup is under way (nothing stored)
     */
    boolean issueSetupToken(byte[] tokenHash, Instant now, Instant expiresAt);

    /**
     * Stores a new user with their first session and events, and claims for them the setup token with
     * {@code setupTokenHash}, in one transaction.
     *
     * @return false, with nothing stored, when that token is not live and unclaimed
     * @throws AlreadyTakenException when the username (or e-mail) is taken
     */
    boolean createClaiming(
            UserRepository.NewUser user,
            Session session,
            byte[] sessionTokenHash,
            Origin origin,
            List<StreamEvent.Draft> events,
            byte[] setupTokenHash,
            Instant now);

    /**
     * Makes {@code user} an administrator and uses up the setup token they claimed, with {@code audit}.
     *
     * @return false when {@code setupTokenHash} is not a live token claimed by {@code user}
     */
    boolean completeSetup(UserId user, byte[] setupTokenHash, Instant now, AuditEntry audit);

    /** True when {@code user} is an administrator. */
    boolean isAdministrator(UserId user);

    /** Stores an administrator session of {@code user}, started from their session {@code sessionId}. */
    void startAdminSession(
            String id,
            byte[] tokenHash,
            UserId user,
            String sessionId,
            Instant now,
            Instant expiresAt,
            AuditEntry audit);

    /**
     * The user of the administrator session with {@code tokenHash}, while it is live, its user is still an
     * administrator, and the session it was started from has not ended.
     */
    Optional<UserId> findAdminSession(byte[] tokenHash, Instant now);

    /**
     * Ends the live administrator session with {@code tokenHash}, with the audit entry {@code audit} makes of its
     * id and user; nothing when it is not live.
     */
    void endAdminSession(
            byte[] tokenHash, Instant now, java.util.function.BiFunction<String, UserId, AuditEntry> audit);
}
