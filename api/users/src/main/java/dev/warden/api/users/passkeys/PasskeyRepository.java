package dev.warden.api.users.passkeys;

import dev.warden.authorizer.domain.UserId;
import dev.warden.pipeline.contract.AuditEntry;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Where passkeys and their ceremonies are kept ({@code passkeys}, {@code webauthn_ceremonies}). */
public interface PasskeyRepository {
    /** What a ceremony is for. */
    enum Kind {
        REGISTRATION("registration"),
        AUTHENTICATION("authentication");

        private final String column;

        Kind(String column) {
            this.column = column;
        }

        /** Its value in {@code webauthn_ceremonies.kind}. */
        public String column() {
            return column;
        }
    }

    /** A ceremony taken for answering: whose it is (registrations only) and the challenge it handed out. */
    record Ceremony(Optional<UserId> user, byte[] challenge) {}

    /** A stored passkey, with what verifying its next assertion needs. */
    record Stored(
            Passkey passkey,
            UserId user,
            byte[] credentialId,
            byte[] attestedCredentialData,
            long signCount,
            boolean uvInitialized,
            boolean backupEligible) {}

    /** Stores a ceremony that may be answered once until {@code expiresAt}; drops some long-expired ones. */
    void createCeremony(
            byte[] handleHash, Kind kind, Optional<UserId> user, byte[] challenge, Instant now, Instant expiresAt);

    /** Uses up the open ceremony of {@code kind} with {@code handleHash}: empty when unknown, used or expired. */
    Optional<Ceremony> useCeremony(byte[] handleHash, Kind kind, Instant now);

    /** What {@link #add} did. */
    enum Added {
        ADDED,
        /** The user has as many passkeys as allowed. */
        TOO_MANY,
        /** The credential is registered already, to this user or another. */
        DUPLICATE
    }

    /** Adds a passkey with its audit entry, unless its owner has {@code maxPerUser} already or it is known. */
    Added add(Stored passkey, int maxPerUser, AuditEntry audit);

    /** {@code user}'s passkeys, the oldest first. */
    List<Stored> listOf(UserId user);

    /** The passkey with credential id {@code credentialId}. */
    Optional<Stored> findByCredential(byte[] credentialId);

    /**
     * Records a verified use: the new counter and backup state, and when. Compare-and-set on the counter that was
     * checked, so two assertions raced with one counter value cannot both pass.
     *
     * @return false when the passkey changed (or went) meanwhile
     */
    boolean recordUse(String id, long checkedCount, long newCount, boolean backedUp, Instant now);

    /** Removes {@code user}'s passkey {@code id} with its audit entry; false when they have no such passkey. */
    boolean remove(UserId user, String id, AuditEntry audit);
}
