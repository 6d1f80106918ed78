package dev.warden.sinks.external;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A local HTTP receiver on 127.0.0.1 and a free port that records every request and answers 200 unless told
 * otherwise: with queued answers (one per request, in order), or slowly.
 */
final class TestReceiver implements AutoCloseable {
    /** One recorded request. */
    record Request(String method, String path, Headers headers, byte[] body) {
        String header(String name) {
            return headers.getFirst(name);
        }

        String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private record Answer(int status, String body) {}

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool(
            Thread.ofPlatform().daemon().name("test-receiver-", 0).factory());
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final Deque<Answer> queued = new ArrayDeque<>();
    private volatile Answer standing = new Answer(200, "{}");
    private volatile Duration delay = Duration.ZERO;

    private TestReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    static TestReceiver start() {
        try {
            return new TestReceiver();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The receiver's base URL, {@code http://127.0.0.1:<port>}. */
    URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** Every later request is answered with {@code status} and {@code body}. */
    TestReceiver answer(int status, String body) {
        standing = new Answer(status, body);
        return this;
    }

    /** The next request is answered with {@code status}; later ones as before. */
    TestReceiver thenAnswer(int status, String body) {
        synchronized (queued) {
            queued.addLast(new Answer(status, body));
        }
        return this;
    }

    /** Every later request is answered only after {@code delay}. */
    TestReceiver answerAfter(Duration delay) {
        this.delay = delay;
        return this;
    }

    List<Request> requests() {
        return List.copyOf(requests);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange;
                InputStream in = exchange.getRequestBody()) {
            requests.add(new Request(
                    exchange.getRequestMethod(),
                    exchange.getRequestURI().getPath(),
                    exchange.getRequestHeaders(),
                    in.readAllBytes()));
            Thread.sleep(delay.toMillis());
            Answer answer = next();
            byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(answer.status(), body.length == 0 ? -1 : body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Answer next() {
        synchronized (queued) {
            return queued.isEmpty() ? standing : queued.removeFirst();
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
