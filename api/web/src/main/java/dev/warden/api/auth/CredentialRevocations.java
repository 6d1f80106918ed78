package dev.warden.api.auth;

import java.util.concurrent.atomic.AtomicLong;

/**
 * That some credential of a person ended, in this process: a grant or an access token revoked, a sign-in session
 * ended. Caches of "still good" answers note the {@link #generation()} they read in and trust an answer only while
 * it has not moved. Two paths move it: the code that revoked, once its transaction has committed (so this instance
 * never answers from before its own revocation), and the database's notification of a revocation committed anywhere
 * (migration V38, heard by {@code AccessChanges}), which also covers another instance's.
 */
public final class CredentialRevocations {
    private final AtomicLong generation = new AtomicLong();

    /** The current generation: read it before reading a credential's state, compare it before trusting that read. */
    public long generation() {
        return generation.get();
    }

    /** A revocation committed: every answer read before now is stale. */
    public void happened() {
        generation.incrementAndGet();
    }
}
