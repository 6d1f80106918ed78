package dev.warden.api.events.stream;

import dev.warden.api.errors.InvalidInputException;
import dev.warden.api.events.FeedEvent;
import dev.warden.api.http.InputContract;
import dev.warden.api.http.Problems;
import dev.warden.pipeline.contract.EventIds;
import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.pipeline.contract.WireEnum;
import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The server-sent event stream (SPEC: Event stream, Stream behaviour 1-9), mountable anywhere as a Helidon
 * {@link HttpService} (default {@code /events/stream}).
 *
 * <p>It answers only a {@code GET} that accepts {@code text/event-stream}; any other request is handed on to
 * the next handler ({@code res.next()}). Events are delivered in strictly increasing id order (ids are
 * positions in {@code warden.events}, {@link EventIds}), so {@code Last-Event-ID} is an exclusive cursor: a reconnecting client
 * receives every event after it exactly once, first from the persisted store, then from an in-memory ring of
 * recent events that covers the store's lag, then live, with no gap between them. A cursor older than the
 * store's retention is reported with a {@code replay.incomplete} event before the replay starts.
 *
 * <p>Thread-safety: {@link #emit} must be called by one thread, in id order (the event feed does); every other
 * method is safe from any thread.
 */
public final class EventStream implements HttpService, AutoCloseable {
    /** Most events {@link #replay} returns. */
    public static final int MAX_REPLAY = 1000;

    private static final Logger LOG = Logger.getLogger(EventStream.class.getName());
    private static final int PAGE = 1000;

    private final EventStreamConfig config;
    private final StreamEventStore store;
    /** The latest events, undecoded (an array each, not a tree: they stay live across young collections). */
    private final Deque<FeedEvent> ring = new ArrayDeque<>();

    private final LiveConnections live = new LiveConnections();
    private final StreamCounters counters = new StreamCounters();
    private final ConnectionSlots slots;
    private final ScheduledExecutorService heartbeats = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("warden-sse-heartbeat").daemon().factory());
    /** Every event with an id above this is in the ring (or still to come). Guarded by {@code this}. */
    private long ringFloor;

    private volatile boolean closed;

    /**
     * @param startPosition the id of the last event before the feed's first one (events up to it come from
     *                      the store only)
     */
    public EventStream(EventStreamConfig config, StreamEventStore store, long startPosition) {
        this.config = config;
        this.store = store;
        this.ringFloor = startPosition;
        this.slots = new ConnectionSlots(config.maxConnections(), config.maxPerSubscriber(), config.adminReserve());
        long every = config.heartbeatInterval().toMillis();
        heartbeats.scheduleAtFixedRate(this::beat, every, every, TimeUnit.MILLISECONDS);
    }

    @Override
    public void routing(HttpRules rules) {
        // The mount point itself only: a sub-path (/events/stream/x) is not the stream and goes on to the
        // surrounding handlers (SPEC Event stream).
        rules.any("/", this::handleRequest);
    }

    /**
     * Fans {@code event} out to every live connection and keeps it in the ring. Called in id order. The event
     * is decoded only when a connection is open; one that cannot be decoded is kept from every client.
     */
    public synchronized void emit(FeedEvent event) {
        ring.addLast(event);
        while (ring.size() > config.ringSize()) {
            ringFloor = ring.removeFirst().position();
        }
        if (!live.isEmpty()) {
            decode(event).ifPresent(live::offer);
        }
    }

    private static Optional<StreamEvent> decode(FeedEvent event) {
        try {
            return Optional.of(event.decode());
        } catch (IllegalArgumentException e) {
            LOG.warning("not streaming malformed event " + event.position() + ": " + e.getMessage());
            return Optional.empty();
        }
    }

    /** What the stream has delivered and dropped. */
    public StreamCounters counters() {
        return counters;
    }

    /** The most connections the stream accepts (the cap, without the administrator's reserve). */
    public int maxConnections() {
        return config.maxConnections();
    }

    public int getConnectionCount() {
        return slots.inUse();
    }

    /**
     * Programmatic replay (SPEC: Stream behaviour 5): events since {@code since} of the given types (all
     * when empty), at most {@value #MAX_REPLAY}, newest first.
     */
    public List<StreamEvent> replay(Instant since, Set<EventType> types) {
        Set<EventType> allowed = EnumSet.noneOf(EventType.class);
        allowed.addAll(types.isEmpty() ? config.eventTypes() : types);
        allowed.retainAll(config.eventTypes());
        if (allowed.isEmpty()) {
            return List.of();
        }
        return store.newestSince(atEventPrecision(since), allowed, MAX_REPLAY);
    }

    /**
     * {@code since} at the precision of event timestamps (milliseconds: the wire form's, and so the store's): an
     * event made in the same millisecond as {@code since}, but after it, carries a timestamp before it, and a
     * finer {@code since} would leave it out.
     */
    private static Instant atEventPrecision(Instant since) {
        return since.truncatedTo(ChronoUnit.MILLIS);
    }

    /**
     * The SSE handler: answers valid SSE requests; another method is 405 with {@code Allow: GET, OPTIONS} ({@code OPTIONS} itself 204); a GET that does not accept
     * {@code text/event-stream} is 406.
     */
    public void handleRequest(ServerRequest req, ServerResponse res) {
        if (closed) {
            res.next();
            return;
        }
        if (req.prologue().method() != Method.GET) {
            res.header(HeaderNames.ALLOW, "GET, OPTIONS");
            if (req.prologue().method() == Method.OPTIONS) {
                res.status(Status.NO_CONTENT_204).send();
            } else {
                Problems.methodNotAllowed(req, res, "GET, OPTIONS");
            }
            return;
        }
        if (!acceptsEventStream(req)) {
            Problems.notAcceptable(req, res, "this stream answers only a GET with Accept: text/event-stream");
            return;
        }
        Optional<Subscriber> subscriber = authenticate(req);
        Set<EventType> types = types(req);
        Optional<Cursor> cursor = cursor(req);
        if (subscriber.isEmpty()) {
            refuse(res);
            return;
        }
        Optional<ConnectionSlots.Slot> slot = slots.acquire(subscriber.get());
        if (slot.isEmpty()) {
            res.status(Status.SERVICE_UNAVAILABLE_503)
                    .header(HeaderNames.CONTENT_TYPE, "text/plain")
                    .header(HeaderNames.RETRY_AFTER, "5")
                    .send("Too many connections");
            return;
        }
        try (OutputStream out = open(res)) {
            stream(
                    new SseConnection(
                            subscriber.get(), types, out, config.maxQueued(), -1, slot.get()::release, counters),
                    cursor);
        } catch (IOException | UncheckedIOException e) {
            LOG.log(Level.FINE, "SSE client went away", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            slot.get().release();
        }
    }

    /** SPEC Stream behaviour 7: one {@code error} event, then close. */
    private static void refuse(ServerResponse res) {
        try (OutputStream out = open(res)) {
            new SseConnection(Subscriber.everything(""), Set.of(), out, 1, 0, () -> {}, new StreamCounters())
                    .sendControl("error", Map.of("code", "UNAUTHORIZED", "message", "Invalid token"));
        } catch (IOException | UncheckedIOException e) {
            LOG.log(Level.FINE, "SSE client went away", e);
        }
    }

    private static OutputStream open(ServerResponse res) {
        res.status(Status.OK_200);
        res.header(HeaderNames.CONTENT_TYPE, "text/event-stream; charset=utf-8");
        res.header(HeaderNames.CACHE_CONTROL, "no-store");
        res.header("X-Accel-Buffering", "no");
        return res.outputStream();
    }

    /**
     * Heartbeat tick: a connection whose previous heartbeat is still unwritten has not taken a byte for a
     * whole interval (a vanished peer, or a client that stopped reading); it is dropped and its slot freed.
     */
    private void beat() {
        live.forEach(connection -> {
            if (!connection.heartbeat()) {
                counters.dropped();
                live.remove(connection);
                connection.close();
                LOG.fine("SSE connection dropped: no heartbeat written for a whole interval");
            }
        });
    }

    private void stream(SseConnection connection, Optional<Cursor> cursor) throws IOException, InterruptedException {
        try {
            // The client learns the stream is open only once it is: a live-only client is registered first (so
            // an event caused right after the client saw the 200 reaches it), a replaying one is covered by its
            // cursor.
            if (cursor.isPresent()) {
                connection.open();
                catchUp(connection, cursor.get());
            } else {
                goLive(connection);
                connection.open();
            }
            if (!closed) {
                connection.pump();
            }
        } finally {
            live.remove(connection);
        }
    }

    /** Store first, then the ring, then live; waits (bounded) for the store when it lags behind the ring. */
    private void catchUp(SseConnection connection, Cursor cursor) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + config.storeCatchUp().toNanos();
        long position = cursor.afterId().orElse(-1L);
        if (cursor.afterId().isPresent()) {
            reportTruncation(connection, position);
        }
        while (true) {
            long through = store.storedThrough();
            position = replayStored(connection, cursor, position, through);
            Bridge bridge = bridge(connection, position, System.nanoTime() > deadline);
            if (bridge != null) {
                if (bridge.floor() > position) {
                    connection.sendControl("replay.incomplete", incomplete("store-lagging", position, bridge.floor()));
                }
                for (FeedEvent raw : bridge.events()) {
                    Optional<StreamEvent> event = decode(raw);
                    if (event.isPresent() && matchesCursor(event.get(), cursor)) {
                        connection.send(event.get());
                    }
                }
                return;
            }
            Thread.sleep(50);
        }
    }

    /**
     * When the ring continues where the store left off (or {@code giveUp}), registers the connection as live
     * and returns the ring's events after {@code position} (sent by the caller, outside the hub lock; live
     * events queue behind them). Returns {@code null} when the store must catch up first. A floor above
     * {@code position} means events were missed (only when giving up).
     */
    private synchronized Bridge bridge(SseConnection connection, long position, boolean giveUp) {
        if (ringFloor > position && !giveUp) {
            return null;
        }
        List<FeedEvent> events = new ArrayList<>();
        for (FeedEvent event : ring) {
            if (event.position() > position) {
                events.add(event);
            }
        }
        live.add(connection);
        return new Bridge(events, ringFloor);
    }

    /** The ring's events after a position (decoded by the caller, outside the lock), and the ring's floor. */
    private record Bridge(List<FeedEvent> events, long floor) {}

    private long replayStored(SseConnection connection, Cursor cursor, long position, long through) throws IOException {
        long at = position;
        while (at < through) {
            StreamEventStore.Page page = cursor.since().isPresent()
                    ? store.since(cursor.since().get(), at, through, PAGE)
                    : store.after(at, through, PAGE);
            for (StreamEvent event : page.events()) {
                connection.send(event);
            }
            if (page.rows() < PAGE) {
                return through;
            }
            at = page.last(); // past unreadable rows too: they are skipped, never the end of the replay
        }
        return Math.max(at, through);
    }

    private void reportTruncation(SseConnection connection, long after) throws IOException {
        long expired = store.expiredThrough();
        if (expired > after) {
            connection.sendControl("replay.incomplete", incomplete("retention", after, expired));
        }
    }

    private static Map<String, Object> incomplete(String reason, long after, long missedThrough) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("reason", reason);
        data.put("after", EventIds.id(after));
        data.put("missedThrough", EventIds.id(missedThrough));
        return data;
    }

    private synchronized void goLive(SseConnection connection) {
        connection.skipTo(ring.isEmpty() ? ringFloor : ring.getLast().position());
        live.add(connection);
    }

    private static boolean matchesCursor(StreamEvent event, Cursor cursor) {
        return cursor.since().map(s -> !event.timestamp().isBefore(s)).orElse(true);
    }

    private boolean acceptsEventStream(ServerRequest req) {
        return req.headers()
                .first(HeaderNames.ACCEPT)
                .map(a -> a.toLowerCase(Locale.ROOT).contains("text/event-stream"))
                .orElse(false);
    }

    private Optional<Subscriber> authenticate(ServerRequest req) {
        if (!config.requireAuth()) {
            return Optional.of(Subscriber.everything("anonymous"));
        }
        Optional<String> token = req.headers()
                .first(HeaderNames.AUTHORIZATION)
                .filter(h -> h.regionMatches(true, 0, "Bearer ", 0, 7))
                .map(h -> h.substring(7).strip())
                .or(() -> req.query().first("token").asOptional())
                .or(() -> config.sessionCookies().stream()
                        .flatMap(name -> req.headers().cookies().first(name).asOptional().stream())
                        .filter(t -> !t.isEmpty())
                        .findFirst())
                .filter(t -> !t.isEmpty());
        return token.flatMap(config.validateToken());
    }

    private Set<EventType> types(ServerRequest req) {
        Optional<String> raw = req.query()
                .first("types")
                .asOptional()
                .filter(s -> !s.isBlank())
                .map(v -> InputContract.text("types", v));
        if (raw.isEmpty()) {
            return config.eventTypes();
        }
        Set<EventType> types = EnumSet.noneOf(EventType.class);
        for (String name : raw.get().split(",")) {
            types.add(WireEnum.parse(EventType.class, name.strip())
                    .orElseThrow(() -> InvalidInputException.field(
                            "types",
                            "unknown event type '" + name.strip() + "'; choose from "
                                    + WireEnum.choices(EventType.class))));
        }
        types.retainAll(config.eventTypes());
        return types;
    }

    private static Optional<Cursor> cursor(ServerRequest req) {
        Optional<String> lastEventId =
                req.headers().first(HeaderNames.create("Last-Event-ID")).filter(s -> !s.isBlank());
        if (lastEventId.isPresent()) {
            long after = EventIds.parse(lastEventId.get().strip())
                    .orElseThrow(() -> InvalidInputException.field("Last-Event-ID", "must be an event id"));
            return Optional.of(new Cursor(Optional.of(after), Optional.empty()));
        }
        Optional<String> since = req.query()
                .first("since")
                .asOptional()
                .filter(s -> !s.isBlank())
                .map(v -> InputContract.text("since", v));
        if (since.isPresent()) {
            try {
                return Optional.of(new Cursor(
                        Optional.empty(), Optional.of(atEventPrecision(InputContract.timestamp(since.get())))));
            } catch (IllegalArgumentException e) {
                throw InvalidInputException.field("since", e.getMessage());
            }
        }
        return Optional.empty();
    }

    /** Where a replay starts: after an event's position ({@link EventIds}), or at a timestamp. */
    private record Cursor(Optional<Long> afterId, Optional<Instant> since) {}

    /** Closes every connection and stops the heartbeat (SPEC: Stream behaviour 8). */
    @Override
    public void close() {
        closed = true;
        heartbeats.shutdownNow();
        live.forEach(SseConnection::close);
        live.clear();
    }
}
