package dev.warden.api.events.stream;

import dev.warden.pipeline.contract.EventIds;
import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.Json;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.pipeline.contract.StreamEventCodec;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * One SSE client. The hub only enqueues (never blocks on a slow client); the request's own thread writes.
 * Events are written strictly in increasing id order and at most once: anything at or below the last
 * position is skipped. A client whose queue overflows is disconnected (it can reconnect with its
 * {@code Last-Event-ID} and lose nothing).
 */
final class SseConnection {
    private static final Object HEARTBEAT = new Object();
    private static final Object CLOSE = new Object();
    private static final byte[] HEARTBEAT_BYTES = ": heartbeat\n\n".getBytes(StandardCharsets.UTF_8);
    private static final byte[] CONNECTED_BYTES = ": connected\n\n".getBytes(StandardCharsets.UTF_8);

    private final Subscriber subscriber;
    private final Set<EventType> types;
    private final OutputStream out;
    private final BlockingQueue<Object> queue;
    /** The writer, while it parks for an empty queue (see {@link #next()}). */
    private volatile Thread waiting;

    private final StreamCounters counters;
    private final Runnable releaseSlot;
    private long position;
    private volatile boolean open = true;
    /** A heartbeat was queued and not yet written. */
    private volatile boolean heartbeatPending;
    /** Heartbeat ticks (hub thread only) that found the queued heartbeat still unwritten. */
    private int ticksUnwritten;

    /**
     * @param releaseSlot frees the connection's slot; called (idempotently) when the hub gives up on the client
     */
    SseConnection(
            Subscriber subscriber,
            Set<EventType> types,
            OutputStream out,
            int maxQueued,
            long position,
            Runnable releaseSlot,
            StreamCounters counters) {
        this.counters = counters;
        this.subscriber = subscriber;
        this.types = Set.copyOf(types);
        this.out = out;
        this.queue = new LinkedBlockingQueue<>(maxQueued); // nodes allocated as events queue, not upfront
        this.position = position;
        this.releaseSlot = releaseSlot;
    }

    /** The audience of this connection's subscriber (how the hub indexes it). */
    Optional<Subscriber.Audience> audience() {
        return subscriber.audience();
    }

    /** The id of the last event this client has been brought past. */
    long position() {
        return position;
    }

    /** Moves the cursor to {@code id} without sending anything (a client that starts live). */
    void skipTo(long id) {
        position = Math.max(position, id);
    }

    /**
     * Hub side: queue a live event this client may see (filtered here, so an event wakes only the writers that
     * send it); a full queue closes the connection.
     */
    void offer(StreamEvent event) {
        if (!wants(event)) {
            return;
        }
        if (open && !enqueue(event)) {
            counters.dropped();
            open = false;
            queue.clear();
            enqueue(CLOSE);
        }
    }

    /**
     * Hub side: queue a heartbeat. False when the queued one is still unwritten after two more ticks: the client
     * has taken nothing for two whole intervals and counts as dead (the caller closes it). One interval is not
     * enough: a writer that a loaded machine or a pause schedules late would be dropped though its client reads.
     */
    boolean heartbeat() {
        if (!open) {
            return true;
        }
        if (heartbeatPending) {
            return ++ticksUnwritten < 2;
        }
        ticksUnwritten = 0;
        heartbeatPending = true;
        if (!enqueue(HEARTBEAT)) {
            return false; // a full queue: the client stopped reading
        }
        return true;
    }

    /** Hub side: ask the writer to finish, and free the slot now (the writer may be stuck in a write). */
    void close() {
        open = false;
        queue.clear();
        enqueue(CLOSE);
        releaseSlot.run();
    }

    boolean isOpen() {
        return open;
    }

    /** Writer side: sends {@code event} if it is new to this client and visible to it (replayed events). */
    void send(StreamEvent event) throws IOException {
        if (advanceTo(event) && wants(event)) {
            write(event);
        }
    }

    /** Of the requested types and visible to the subscriber. */
    private boolean wants(StreamEvent event) {
        return types.contains(event.type()) && subscriber.maySee().test(event);
    }

    /** Moves the cursor to {@code event}; false when the client is already past it. */
    private boolean advanceTo(StreamEvent event) {
        long id = EventIds.parse(event.id()).orElseThrow();
        if (id <= position) {
            return false;
        }
        position = id;
        return true;
    }

    private void write(StreamEvent event) throws IOException {
        write(event.type().wireName(), event.id(), StreamEventCodec.encode(event));
        counters.delivered();
    }

    /** Writer side: a control event outside the id sequence (no {@code id:} line). */
    void sendControl(String name, Map<String, Object> data) throws IOException {
        byte[] json = Json.mapper().writeValueAsBytes(data);
        write(name, null, json);
    }

    /**
     * Writer side: sends the response headers and a {@code : connected} comment at once, so that the client
     * sees the stream open before the first event.
     */
    void open() throws IOException {
        out.write(CONNECTED_BYTES);
        out.flush();
    }

    /** Writer side: drains the queue until closed or the client goes away. */
    void pump() throws IOException, InterruptedException {
        while (true) {
            Object next = next(); // close() and heartbeats queue markers: no timed wake-ups needed
            if (next == CLOSE) {
                return;
            }
            if (next == HEARTBEAT) {
                out.write(HEARTBEAT_BYTES);
                out.flush();
                heartbeatPending = false;
            } else if (advanceTo((StreamEvent) next)) {
                write((StreamEvent) next); // queued by offer, which already checked wants()
            }
        }
    }

    /** Queues {@code item} and wakes the writer if it waits; false when the queue is full. */
    private boolean enqueue(Object item) {
        if (!queue.offer(item)) {
            return false;
        }
        Thread writer = waiting;
        if (writer != null) {
            LockSupport.unpark(writer);
        }
        return true;
    }

    /**
     * Writer side: the next queued item, parking while there is none. The writer parks here itself rather than
     * in {@code take()}: an open stream's virtual thread spends its life parked, and its stack is kept on the heap
     * (SSE fan-out, docs/benchmarks-notebook.md, issue 41); {@code take()} adds five frames (the lock's condition
     * and the fork-join pool's blocker) to each. No wake-up is lost: the writer announces itself before it looks
     * at the queue a last time, and {@link #enqueue} looks for it after the item is in.
     */
    private Object next() throws InterruptedException {
        while (true) {
            Object next = queue.poll();
            if (next != null) {
                return next;
            }
            waiting = Thread.currentThread();
            if (queue.isEmpty()) {
                LockSupport.park(this);
            }
            waiting = null;
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }

    /**
     * One event as one write: the listener's write buffer is small (WardenPlatform), so the frame goes out as one
     * chunk in one system call, not a chunk per line.
     */
    private void write(String name, String id, byte[] data) throws IOException {
        int idLength = id == null ? 0 : ID.length + id.length() + 1;
        byte[] frame = new byte[idLength + EVENT.length + name.length() + 1 + DATA.length + data.length + 2];
        int at = 0;
        if (id != null) {
            at = put(frame, at, ID);
            at = putAscii(frame, at, id);
            frame[at++] = '\n';
        }
        at = put(frame, at, EVENT);
        at = putAscii(frame, at, name);
        frame[at++] = '\n';
        at = put(frame, at, DATA);
        at = put(frame, at, data);
        frame[at++] = '\n';
        frame[at] = '\n';
        out.write(frame);
        out.flush();
    }

    private static final byte[] ID = "id: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EVENT = "event: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DATA = "data: ".getBytes(StandardCharsets.US_ASCII);

    private static int put(byte[] into, int at, byte[] bytes) {
        System.arraycopy(bytes, 0, into, at, bytes.length);
        return at + bytes.length;
    }

    /** Event ids and names are ASCII (digits, letters, dots, underscores). */
    private static int putAscii(byte[] into, int at, String text) {
        for (int i = 0; i < text.length(); i++) {
            into[at++] = (byte) text.charAt(i);
        }
        return at;
    }
}
