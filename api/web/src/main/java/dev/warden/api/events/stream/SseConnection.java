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
        if (open && !queue.offer(event)) {
            counters.dropped();
            open = false;
            queue.clear();
            queue.offer(CLOSE);
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
        if (!queue.offer(HEARTBEAT)) {
            return false; // a full queue: the client stopped reading
        }
        return true;
    }

    /** Hub side: ask the writer to finish, and free the slot now (the writer may be stuck in a write). */
    void close() {
        open = false;
        queue.clear();
        queue.offer(CLOSE);
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
            Object next = queue.take(); // close() and heartbeats queue markers: no timed wake-ups needed
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

    private void write(String name, String id, byte[] data) throws IOException {
        StringBuilder head = new StringBuilder(64);
        if (id != null) {
            head.append("id: ").append(id).append('\n');
        }
        head.append("event: ").append(name).append('\n').append("data: ");
        out.write(head.toString().getBytes(StandardCharsets.UTF_8));
        out.write(data);
        out.write("\n\n".getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}
