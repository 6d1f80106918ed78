package dev.warden.api.events;

import dev.warden.api.errors.UnavailableException;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.runtime.db.Database;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Events whose only write is themselves, appended to the outbox by group commit: whoever calls {@link #append}
 * while a transaction is being written waits for the next one, which carries every event queued meanwhile. Each
 * caller returns once its event is committed (nothing is answered whose event could still be lost), and many
 * callers share one commit instead of paying one each. Used by the token endpoint's client-credentials grant, whose
 * tokens have no row of their own (D185). One writer thread; a bounded queue (a full one is a 503, never a wait
 * without end). Thread-safe.
 */
public final class GroupCommitEvents implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(GroupCommitEvents.class.getName());
    private static final int MAX_BATCH = 256;
    private static final int QUEUE = 4096;
    private static final Duration RETRY_AFTER = Duration.ofSeconds(1);

    private final Database db;
    private final BlockingQueue<Pending> queue = new ArrayBlockingQueue<>(QUEUE);
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread writer;

    private record Pending(StreamEvent.Draft event, CompletableFuture<Void> committed) {}

    /** Queued by {@link #close} to end the writer's wait at once; never written. */
    private static final Pending WAKE = new Pending(null, new CompletableFuture<>());
    /**
     * The longest the idle writer waits for an event before it looks again whether it is closing; {@link #close}
     * wakes it sooner. An event ends the wait at once.
     */
    private static final Duration IDLE_WAIT = Duration.ofSeconds(10);

    public GroupCommitEvents(Database db) {
        this.db = db;
        this.writer =
                Thread.ofPlatform().name("warden-group-commit-events").daemon().start(this::run);
    }

    /**
     * Appends {@code event} and returns once the transaction holding it committed.
     *
     * @throws UnavailableException when the queue is full or this appender is closed
     * @throws RuntimeException     what the database threw for the batch holding the event
     */
    public void append(StreamEvent.Draft event) {
        Pending pending = new Pending(event, new CompletableFuture<>());
        if (!running.get() || !queue.offer(pending)) {
            throw new UnavailableException("too many tokens are being recorded; try again", RETRY_AFTER);
        }
        try {
            pending.committed().join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        }
    }

    private void run() {
        List<Pending> batch = new ArrayList<>(MAX_BATCH);
        while (running.get() || !queue.isEmpty()) {
            try {
                Pending first = queue.poll(IDLE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, MAX_BATCH - 1);
                batch.remove(WAKE);
                if (!batch.isEmpty()) {
                    write(batch);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } finally {
                batch.clear();
            }
        }
        fail(new UnavailableException("the server is stopping", RETRY_AFTER));
    }

    private void write(List<Pending> batch) {
        try {
            db.inTransaction(conn -> {
                EventOutbox.appendAll(conn, batch.stream().map(Pending::event).toList());
                return null;
            });
            batch.forEach(p -> p.committed().complete(null));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "could not record " + batch.size() + " events", e);
            batch.forEach(p -> p.committed().completeExceptionally(e));
        }
    }

    private void fail(RuntimeException reason) {
        List<Pending> left = new ArrayList<>();
        queue.drainTo(left);
        left.remove(WAKE);
        left.forEach(p -> p.committed().completeExceptionally(reason));
    }

    /** Writes what is queued, then stops; later calls to {@link #append} are refused. */
    @Override
    public void close() {
        running.set(false);
        queue.offer(WAKE); // a full queue needs no waking
        try {
            writer.join(Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        writer.interrupt();
        fail(new UnavailableException("the server is stopping", RETRY_AFTER));
    }
}
