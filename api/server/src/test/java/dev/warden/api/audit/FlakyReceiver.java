package dev.warden.api.audit;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Splunk HTTP Event Collector double that fails as a SIEM does: answering 500, refusing connections (stopped,
 * then started again on the same port), answering slowly, or 429 with {@code Retry-After}. It records every audit id
 * it accepted (duplicates too) and when each request came.
 */
final class FlakyReceiver implements AutoCloseable {
    /** How the receiver answers. */
    enum Mode {
        OK,
        FAIL_500,
        SLOW_5S,
        TOO_MANY_ONCE
    }

    private static final Pattern AUDIT_ID = Pattern.compile("\"id\":\"(aud_[A-Za-z0-9]+)\"");

    final List<String> accepted = new CopyOnWriteArrayList<>();
    final List<Instant> requests = new CopyOnWriteArrayList<>();
    private final int port;
    private volatile Mode mode = Mode.OK;
    private volatile HttpServer server;
    private volatile int retryAfterSeconds;

    FlakyReceiver() {
        this.server = start(0);
        this.port = server.getAddress().getPort();
    }

    int port() {
        return port;
    }

    void mode(Mode mode) {
        this.mode = mode;
    }

    /** Answers the next request 429 with {@code Retry-After: seconds}, then OK. */
    void tooManyOnce(int seconds) {
        this.retryAfterSeconds = seconds;
        this.mode = Mode.TOO_MANY_ONCE;
    }

    /** Stops listening: connections are refused. */
    void down() {
        server.stop(0);
    }

    /** Listens again on the same port. */
    void up() {
        server = start(port);
    }

    private HttpServer start(int on) {
        try {
            HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", on), 0);
            s.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
            s.createContext("/services/collector/event", exchange -> {
                requests.add(Instant.now());
                String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                Mode now = mode;
                if (now == Mode.FAIL_500) {
                    answer(exchange, 500, "{\"text\":\"Internal server error\",\"code\":8}");
                    return;
                }
                if (now == Mode.TOO_MANY_ONCE) {
                    mode = Mode.OK;
                    exchange.getResponseHeaders().add("Retry-After", Integer.toString(retryAfterSeconds));
                    answer(exchange, 429, "{\"text\":\"Server is busy\",\"code\":9}");
                    return;
                }
                if (now == Mode.SLOW_5S) {
                    try {
                        Thread.sleep(5000);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                Matcher m = AUDIT_ID.matcher(body);
                while (m.find()) {
                    accepted.add(m.group(1));
                }
                answer(exchange, 200, "{\"text\":\"Success\",\"code\":0}");
            });
            s.start();
            return s;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void answer(com.sun.net.httpserver.HttpExchange exchange, int status, String body)
            throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    /** How many times {@code id} was accepted. */
    long times(String id) {
        return accepted.stream().filter(id::equals).count();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
