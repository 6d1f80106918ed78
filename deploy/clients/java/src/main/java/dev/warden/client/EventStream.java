package dev.warden.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The event stream ({@code GET /events/stream}, docs/events.md) as an iterator that does not end when the
 * connection does: a dropped connection (a network failure, a server restart, a 503 when the stream is full) is
 * opened again with {@code Last-Event-ID} of the last event handed out, after the wait the server asked
 * ({@code retry:} or {@code Retry-After}) or a backoff doubling from 1 s to 30 s, so every event arrives once and in
 * order. A refusal that a retry cannot cure (a bad token, a bad filter) ends it with a {@link WardenException}.
 * {@link #close()} ends it from any thread. Not thread-safe otherwise: one reader.
 */
public final class EventStream implements Iterator<StreamEvent>, AutoCloseable {
    static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

    /** What to read: types (empty: all the caller may see) and where to resume. */
    public record Options(List<String> types, Optional<String> lastEventId, Consumer<String> onReconnect) {
        public Options {
            types = List.copyOf(types);
        }

        /** Every type, from now. */
        public static Options all() {
            return new Options(List.of(), Optional.empty(), reason -> {});
        }

        public Options withTypes(List<String> types) {
            return new Options(types, lastEventId, onReconnect);
        }

        /** Resume after the event {@code id} (exclusive). */
        public Options after(String id) {
            return new Options(types, Optional.of(id), onReconnect);
        }

        /** Told why, each time the stream is opened again (for a progress line; never throws). */
        public Options onReconnect(Consumer<String> listener) {
            return new Options(types, lastEventId, listener);
        }
    }

    private final Transport transport;
    private final Credentials credentials;
    private final Options options;
    private volatile boolean closed;
    private volatile InputStream body;
    private BufferedReader reader;
    private Optional<String> lastEventId;
    private Duration retry = FIRST_BACKOFF;
    private Duration backoff = FIRST_BACKOFF;
    private StreamEvent next;

    EventStream(Transport transport, Credentials credentials, Options options) {
        this.transport = transport;
        this.credentials = credentials;
        this.options = options;
        this.lastEventId = options.lastEventId();
    }

    /** The id of the last event handed out (where a new stream would resume), if any. */
    public Optional<String> lastEventId() {
        return lastEventId;
    }

    @Override
    public boolean hasNext() {
        if (next != null) {
            return true;
        }
        while (!closed) {
            try {
                if (reader == null) {
                    connect();
                    continue;
                }
                StreamEvent event = read();
                if (event != null) {
                    next = event;
                    return true;
                }
                drop("the server closed the stream");
            } catch (IOException | UncheckedIOException e) {
                if (!closed) {
                    drop("the connection failed: " + e.getMessage());
                }
            }
        }
        return false;
    }

    @Override
    public StreamEvent next() {
        if (!hasNext()) {
            throw new NoSuchElementException("the stream is closed");
        }
        StreamEvent event = next;
        next = null;
        event.id().ifPresent(id -> lastEventId = Optional.of(id));
        return event;
    }

    @Override
    public void close() {
        closed = true;
        InputStream in = body;
        if (in != null) {
            try {
                in.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }

    private void connect() {
        StringBuilder path = new StringBuilder("/events/stream");
        if (!options.types().isEmpty()) {
            path.append("?types=").append(Transport.encode(String.join(",", options.types())));
        }
        String bearer = credentials.bearer();
        HttpRequest.Builder request = transport
                .request(path.toString(), Optional.of(bearer))
                .timeout(Duration.ofDays(365))
                .setHeader("Accept", "text/event-stream")
                .GET();
        lastEventId.ifPresent(id -> request.header("Last-Event-ID", id));
        HttpResponse<InputStream> response;
        try {
            response = transport.stream(request.build());
        } catch (WardenException e) {
            if (e.status() == 401 && credentials.invalidate(bearer)) {
                pause(Duration.ZERO, "the access token was renewed");
                return;
            }
            if (e.status() != 0 && e.status() != 429 && e.status() / 100 != 5) {
                throw e;
            }
            pause(e.retryAfter().orElse(backoff), e.getMessage());
            backoff = doubled(backoff);
            return;
        }
        body = response.body();
        if (closed) {
            close();
            return;
        }
        reader = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
    }

    /** The next dispatched event, or null at the end of the body. */
    private StreamEvent read() throws IOException {
        String id = null;
        String type = "message";
        StringBuilder data = null;
        String line;
        while ((line = reader.readLine()) != null) {
            if (line.isEmpty()) {
                if (data == null) {
                    id = null;
                    type = "message";
                    continue;
                }
                backoff = FIRST_BACKOFF; // an event came through: the connection works
                if (type.equals("error")) {
                    JsonNode error = parse(data.toString());
                    throw new WardenException(
                            401,
                            error.path("code").asText("error").toLowerCase(java.util.Locale.ROOT),
                            error.path("message").asText(""),
                            List.of(),
                            "",
                            Optional.empty(),
                            null);
                }
                return new StreamEvent(Optional.ofNullable(id), type, parse(data.toString()));
            }
            if (line.startsWith(":")) {
                continue; // a comment: the opening ": connected", heartbeats
            }
            int colon = line.indexOf(':');
            String field = colon < 0 ? line : line.substring(0, colon);
            String value = colon < 0 ? "" : line.substring(colon + 1);
            if (value.startsWith(" ")) {
                value = value.substring(1);
            }
            switch (field) {
                case "id" -> id = value;
                case "event" -> type = value;
                case "data" ->
                    data = data == null
                            ? new StringBuilder(value)
                            : data.append('\n').append(value);
                case "retry" -> retry = millis(value).orElse(retry);
                default -> {} // unknown fields are ignored (the SSE specification)
            }
        }
        return null;
    }

    private void drop(String reason) {
        close(reader);
        reader = null;
        body = null;
        if (!closed) {
            pause(retry.compareTo(backoff) > 0 ? retry : backoff, reason);
            backoff = doubled(backoff);
        }
    }

    private void pause(Duration wait, String reason) {
        try {
            options.onReconnect()
                    .accept(reason + "; resuming"
                            + lastEventId.map(id -> " after " + id).orElse("") + " in " + wait.toMillis() + " ms");
        } catch (RuntimeException e) {
            // a listener's failure is not the stream's
        }
        try {
            Thread.sleep(wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closed = true;
        }
    }

    private static JsonNode parse(String data) {
        try {
            return Transport.JSON.readTree(data);
        } catch (IOException e) {
            return Transport.JSON.getNodeFactory().textNode(data);
        }
    }

    private static Optional<Duration> millis(String value) {
        try {
            return Optional.of(Duration.ofMillis(Long.parseLong(value.trim())));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static Duration doubled(Duration d) {
        Duration twice = d.multipliedBy(2);
        return twice.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : twice;
    }

    private static void close(BufferedReader r) {
        if (r != null) {
            try {
                r.close();
            } catch (IOException e) {
                // already gone
            }
        }
    }
}
