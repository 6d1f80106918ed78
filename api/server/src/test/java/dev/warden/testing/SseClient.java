package dev.warden.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** A minimal SSE client for tests: parses {@code id/event/data} blocks and comment lines into a queue. */
public final class SseClient implements AutoCloseable {
    /** One parsed block; {@code comment} is set for {@code : ...} lines. */
    public record Message(String id, String event, String data, String comment) {}

    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    private final BlockingQueue<Message> messages = new LinkedBlockingQueue<>();
    private final HttpResponse<Stream<String>> response;
    private final Thread reader;
    private volatile boolean ended;

    private SseClient(HttpResponse<Stream<String>> response) {
        this.response = response;
        this.reader = Thread.ofVirtual().start(this::read);
    }

    /** Opens {@code base + path} with {@code Accept: text/event-stream} and the given headers. */
    public static SseClient connect(URI base, String path, Map<String, String> headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).header("Accept", "text/event-stream");
        headers.forEach(b::header);
        try {
            return new SseClient(CLIENT.send(b.GET().build(), HttpResponse.BodyHandlers.ofLines()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public int status() {
        return response.statusCode();
    }

    /** True once the server closed the stream. */
    public boolean ended() {
        return ended;
    }

    /** The next message, or null after {@code timeout}. */
    public Message next(Duration timeout) throws InterruptedException {
        return messages.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Next non-comment events until {@code count} are read or {@code timeout} passes. */
    public List<Message> events(int count, Duration timeout) throws InterruptedException {
        List<Message> out = new ArrayList<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (out.size() < count && System.nanoTime() < deadline) {
            Message m = messages.poll(Math.max(1, (deadline - System.nanoTime()) / 1_000_000), TimeUnit.MILLISECONDS);
            if (m != null && m.comment() == null) {
                out.add(m);
            }
        }
        return out;
    }

    private void read() {
        String id = null;
        String event = null;
        StringBuilder data = null;
        try (Stream<String> lines = response.body()) {
            for (String line : (Iterable<String>) lines::iterator) {
                if (line.isEmpty()) {
                    if (event != null || data != null) {
                        messages.add(new Message(
                                id, event == null ? "message" : event, data == null ? "" : data.toString(), null));
                    }
                    id = null;
                    event = null;
                    data = null;
                } else if (line.startsWith(":")) {
                    messages.add(new Message(null, null, null, line.substring(1).strip()));
                } else if (line.startsWith("id:")) {
                    id = line.substring(3).strip();
                } else if (line.startsWith("event:")) {
                    event = line.substring(6).strip();
                } else if (line.startsWith("data:")) {
                    data = (data == null ? new StringBuilder() : data.append('\n'))
                            .append(line.substring(5).strip());
                }
            }
        } catch (RuntimeException e) {
            // closed
        } finally {
            ended = true;
        }
    }

    @Override
    public void close() {
        response.body().close();
        reader.interrupt();
    }
}
