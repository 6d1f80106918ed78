package dev.warden.api.doctor;

import java.time.Instant;
import java.util.Optional;

/** What the security doctor reads of the state other components keep: counts and times, never a secret. */
interface StoredFacts {
    /** When the newest signing key that has not expired at {@code now} was made; empty when there is none. */
    Optional<Instant> newestSigningKey(Instant now);

    /** How many webhook signing secrets are stored in clear (not sealed by the webhook secret cipher). */
    long webhookSecretsInClear();

    /** True when some user is an administrator (set up with the first-run setup token). */
    boolean administratorExists();
}
