package dev.warden.api.oauth.token;

import dev.warden.runtime.db.DatabaseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The refresh grant's rotations, written by concurrent requests together (D196): a request that finds fewer than
 * {@code maxRunning} rotation statements running writes every rotation queued meanwhile, its own included, in one
 * statement ({@link GrantRepository#rotateRefreshTokens}); one that finds them all running waits until a running
 * one has written its rotation, or until it may run the next. No thread of its own and no timer: a lone request
 * runs its statement at once, and batches form only while the database is busy with the ones before. Each
 * rotation is decided as alone (a token presented twice reads as a concurrent use, as between two statements).
 *
 * <p>A batch that PostgreSQL refuses for one of its rows or rolls back for a conflict with another statement (a
 * data, constraint or transaction-rollback error) is written again one rotation at a time, so that no request fails
 * for another's. Any other failure (no connection) is every waiting request's. Thread-safe.
 */
final class RefreshRotations {
    /** SQLSTATE classes retried one rotation at a time: data exception, integrity constraint, transaction rollback. */
    private static final Set<String> RETRIED_ALONE = Set.of("22", "23", "40");

    /**
     * Rotation statements at once: two, one per core of the small machines Warden is measured on. More would write
     * smaller batches while the database is busy; other values were not measured.
     */
    static final int MAX_RUNNING = 2;
    /** Rotations in one statement. */
    static final int MAX_BATCH = 64;

    private final GrantRepository grants;
    private final int maxBatch;
    private final Semaphore running;
    private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();
    private final LongAdder statements = new LongAdder();

    RefreshRotations(GrantRepository grants) {
        this(grants, MAX_RUNNING, MAX_BATCH);
    }

    /**
     * @param maxRunning the most rotation statements at once
     * @param maxBatch   the most rotations in one statement
     */
    RefreshRotations(GrantRepository grants, int maxRunning, int maxBatch) {
        if (maxRunning < 1 || maxBatch < 1) {
            throw new IllegalArgumentException("maxRunning and maxBatch must be positive");
        }
        this.grants = grants;
        this.maxBatch = maxBatch;
        this.running = new Semaphore(maxRunning);
    }

    /** A queued rotation; its answer or failure is set once, then {@code done}. */
    private static final class Pending {
        final GrantRepository.Rotation rotation;
        final Thread waiting = Thread.currentThread();
        Optional<GrantRepository.Rotated> answer;
        RuntimeException failure;
        /** A statement has taken it from the queue. */
        volatile boolean taken;

        volatile boolean done;

        Pending(GrantRepository.Rotation rotation) {
            this.rotation = rotation;
        }

        void answer(Optional<GrantRepository.Rotated> rotated) {
            answer = rotated;
            finish();
        }

        void fail(RuntimeException e) {
            failure = e;
            finish();
        }

        private void finish() {
            done = true;
            if (waiting != Thread.currentThread()) {
                LockSupport.unpark(waiting);
            }
        }
    }

    /** {@link GrantRepository#rotateRefreshToken}, written with whatever other rotations wait meanwhile. */
    Optional<GrantRepository.Rotated> rotate(GrantRepository.Rotation rotation) {
        Pending mine = new Pending(rotation);
        queue.add(mine);
        boolean interrupted = false;
        while (!mine.done) {
            if (!mine.taken && running.tryAcquire()) {
                try {
                    List<Pending> batch;
                    while (!mine.done && !(batch = take()).isEmpty()) {
                        write(batch);
                    }
                } finally {
                    running.release();
                }
                // Whoever queued while every statement was running waits for a free one: wake the first waiting.
                Pending next = queue.peek();
                if (next != null) {
                    LockSupport.unpark(next.waiting);
                }
            } else {
                // Every statement is running, or one has taken this rotation: it lasts one statement, and the
                // rotation cannot be taken back, so an interrupt is kept for after.
                LockSupport.park(this);
                interrupted |= Thread.interrupted();
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (mine.failure != null) {
            throw mine.failure;
        }
        return mine.answer;
    }

    /** Statements written so far (a batch, or one rotation alone). */
    long statements() {
        return statements.sum();
    }

    /** Up to {@code maxBatch} queued rotations, oldest first. */
    private List<Pending> take() {
        List<Pending> batch = new ArrayList<>();
        Pending next;
        while (batch.size() < maxBatch && (next = queue.poll()) != null) {
            next.taken = true;
            batch.add(next);
        }
        return batch;
    }

    /** Writes {@code batch}; each of its rotations is answered or failed, whatever is thrown. */
    private void write(List<Pending> batch) {
        try {
            writeAnswering(batch);
        } catch (Error e) {
            // Not a database failure: the waiting requests fail rather than wait for an answer that is not coming.
            RuntimeException failure = new IllegalStateException("the refresh rotation could not be written", e);
            batch.stream().filter(p -> !p.done).forEach(p -> p.fail(failure));
            throw e;
        }
    }

    private void writeAnswering(List<Pending> batch) {
        if (batch.size() == 1) {
            writeAlone(batch.getFirst());
            return;
        }
        List<Optional<GrantRepository.Rotated>> answers;
        try {
            statements.increment();
            answers = grants.rotateRefreshTokens(
                    batch.stream().map(p -> p.rotation).toList());
        } catch (DatabaseException e) {
            String state = e.sqlState();
            if (state != null && state.length() >= 2 && RETRIED_ALONE.contains(state.substring(0, 2))) {
                batch.forEach(this::writeAlone);
            } else {
                batch.forEach(p -> p.fail(e));
            }
            return;
        } catch (RuntimeException e) {
            batch.forEach(p -> p.fail(e));
            return;
        }
        for (int i = 0; i < batch.size(); i++) {
            batch.get(i).answer(answers.get(i));
        }
    }

    private void writeAlone(Pending pending) {
        try {
            statements.increment();
            pending.answer(grants.rotateRefreshToken(pending.rotation));
        } catch (RuntimeException e) {
            pending.fail(e);
        }
    }
}
