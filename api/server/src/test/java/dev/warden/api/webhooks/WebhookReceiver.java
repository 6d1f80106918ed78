package dev.warden.api.webhooks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.warden.pipeline.contract.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Base64;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A webhook receiver on 127.0.0.1 and a free port. Records every request by path and answers each path from
 * its script (one status per request, in order), then 200. A path can be held: its requests wait until
 * released. Verifies Standard Webhooks signatures with its own HMAC code, independent of Warden's signer.
 */
final class WebhookReceiver implements AutoCloseable {
    /** One recorded request; header names lower-cased. */
    record Request(String path, Map<String, String> headers, byte[] body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        String webhookId() {
            return header("webhook-id");
        }

        JsonNode json() {
            try {
                return Json.mapper().readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** True when {@code webhook-signature} is the HMAC of {@code id.timestamp.body} under {@code secret}. */
        boolean signedWith(String secret) {
            try {
                Mac mac = Mac.getInstance("HmacSHA256");
                mac.init(new SecretKeySpec(
                        Base64.getDecoder().decode(secret.substring("whsec_".length())), "HmacSHA256"));
                mac.update((webhookId() + "." + header("webhook-timestamp") + ".").getBytes(StandardCharsets.UTF_8));
                String expected = "v1," + Base64.getEncoder().encodeToString(mac.doFinal(body));
                return List.of(header("webhook-signature").split(" ")).contains(expected);
            } catch (java.security.GeneralSecurityException e) {
                throw new AssertionError(e);
            }
        }
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool(
            Thread.ofPlatform().daemon().name("webhook-receiver-", 0).factory());
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final Map<String, Deque<Integer>> scripts = new HashMap<>();
    private final Map<String, CountDownLatch> holds = new HashMap<>();

    private WebhookReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    static WebhookReceiver start() {
        try {
            return new WebhookReceiver();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The URL of {@code path} on this receiver. */
    String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    /** The next requests to {@code path} are answered with {@code statuses}, in order; later ones with 200. */
    WebhookReceiver script(String path, Integer... statuses) {
        synchronized (scripts) {
            scripts.computeIfAbsent(path, p -> new ArrayDeque<>()).addAll(List.of(statuses));
        }
        return this;
    }

    /** Requests to {@code path} wait until the returned latch is counted down (at most 20 s). */
    CountDownLatch hold(String path) {
        CountDownLatch latch = new CountDownLatch(1);
        synchronized (holds) {
            holds.put(path, latch);
        }
        return latch;
    }

    /** The requests to {@code path} so far. */
    List<Request> requests(String path) {
        return requests.stream().filter(r -> r.path().equals(path)).toList();
    }

    /** Waits until {@code path} has had at least {@code count} requests; returns them. */
    List<Request> await(String path, int count) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (requests(path).size() < count && System.nanoTime() < deadline) {
            sleep(20);
        }
        List<Request> got = requests(path);
        assertThat(got).as("requests to " + path).hasSizeGreaterThanOrEqualTo(count);
        return got;
    }

    /** Waits until a request to {@code path} carries an event for which {@code test} holds; returns all. */
    List<Request> awaitEvent(String path, java.util.function.Predicate<JsonNode> test) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (requests(path).stream().noneMatch(r -> test.test(r.json())) && System.nanoTime() < deadline) {
            sleep(20);
        }
        List<Request> got = requests(path);
        assertThat(got).as("requests to " + path).anyMatch(r -> test.test(r.json()));
        return got;
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange;
                InputStream in = exchange.getRequestBody()) {
            String path = exchange.getRequestURI().getPath();
            Map<String, String> headers = new HashMap<>();
            exchange.getRequestHeaders()
                    .forEach((name, values) -> headers.put(name.toLowerCase(Locale.ROOT), String.join(",", values)));
            requests.add(new Request(path, Map.copyOf(headers), in.readAllBytes()));
            awaitRelease(path);
            exchange.sendResponseHeaders(next(path), -1);
        }
    }

    private void awaitRelease(String path) {
        CountDownLatch latch;
        synchronized (holds) {
            latch = holds.get(path);
        }
        if (latch != null) {
            try {
                latch.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private int next(String path) {
        synchronized (scripts) {
            Integer status = scripts.getOrDefault(path, new ArrayDeque<>()).poll();
            return status == null ? 200 : status;
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
