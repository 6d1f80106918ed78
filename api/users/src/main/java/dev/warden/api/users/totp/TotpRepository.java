package dev.warden.api.users.totp;

import dev.warden.authorizer.domain.UserId;
import dev.warden.pipeline.contract.AuditEntry;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Where TOTP enrolments, recovery codes and sign-in challenges are kept. */
public interface TotpRepository {

    /** A user's TOTP: the stored (sealed) secret, when it was confirmed, and the last step accepted. */
    record Enrolment(String storedSecret, Optional<Instant> confirmedAt, long lastStep) {
        public boolean confirmed() {
            return confirmedAt.isPresent();
        }
    }

    Optional<Enrolment> find(UserId user);

    /** Starts (or restarts) an unconfirmed enrolment; false when a confirmed one exists. */
    boolean startEnrolment(UserId user, String storedSecret, Instant now);

    /**
     * Confirms the pending enrolment at {@code step} and stores the recovery codes' hashes, with {@code audit}, in
     * one transaction; false when there is no pending enrolment (none, or confirmed meanwhile).
     */
    boolean confirm(UserId user, long step, List<byte[]> recoveryHashes, Instant now, AuditEntry audit);

    /** Records {@code step} as accepted; false when it is not after the last accepted one (a reused code). */
    boolean accept(UserId user, long step);

    /** Uses a recovery code; false when unknown or already used. */
    boolean useRecoveryCode(UserId user, byte[] hash, Instant now);

    /** Recovery codes not yet used. */
    int recoveryCodesLeft(UserId user);

    /** Removes the user's TOTP and recovery codes, with {@code audit}; false when there was none. */
    boolean remove(UserId user, AuditEntry audit);

    /** Stores a sign-in challenge that follows {@code firstFactor} (an RFC 8176 value: {@code pwd}, {@code otp}). */
    void createChallenge(byte[] tokenHash, UserId user, String firstFactor, Instant now, Instant expiresAt);

    /** A challenge's user and the first factor it followed. */
    record OpenChallenge(UserId user, String firstFactor) {}

    /** The challenge, while it is unused, unexpired and has attempts left. */
    Optional<OpenChallenge> openChallenge(byte[] tokenHash, Instant now, int maxAttempts);

    /** Counts a wrong answer to a challenge. */
    void challengeFailed(byte[] tokenHash);

    /** Uses a challenge; false when it was used meanwhile. */
    boolean useChallenge(byte[] tokenHash, Instant now);
}
