package dev.warden.sinks.external;

import dev.warden.runtime.outbound.RetryAfter;
import dev.warden.sinks.external.AuditSink.SinkException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * POSTs bodies to one endpoint with bounded time and at most {@link HttpOptions#retries()} immediate retries
 * of a transient failure. Thread-safe. Failures become {@link SinkException}s that name the sink, the endpoint
 * (without user info or query, which may carry credentials) and the HTTP status; header values, which carry
 * the tokens, never appear in them.
 */
final class HttpDelivery implements AutoCloseable {
    private static final int SNIPPET_CHARS = 200;

    private final String sink;
    private final URI endpoint;
    private final String shownEndpoint;
    private final HttpOptions options;
    private final HttpClient client;

    HttpDelivery(String sink, URI endpoint, HttpOptions options) {
        this.sink = sink;
        this.endpoint = endpoint;
        this.shownEndpoint = shown(endpoint);
        this.options = options;
        // HTTP/1.1: every HEC, CloudEvents and OTLP receiver speaks it, and it avoids the h2c upgrade dance on
        // plain http. Redirects are not followed so that a token is never replayed to another host.
        this.client = HttpClient.newBuilder()
                .connectTimeout(options.connectTimeout())
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    /** The endpoint as it may appear in logs: scheme, host, port and path only. */
    static String shown(URI uri) {
        String port = uri.getPort() < 0 ? "" : ":" + uri.getPort();
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        return uri.getScheme() + "://" + uri.getHost() + port + path;
    }

    /** {@code base} with {@code path} appended, tolerating a trailing slash on {@code base}. */
    static URI resolve(URI base, String path) {
        String text = base.toString();
        return URI.create((text.endsWith("/") ? text.substring(0, text.length() - 1) : text) + path);
    }

    /**
     * Sends one POST; returns when the endpoint answered 2xx.
     *
     * @throws SinkException after the last failed attempt, naming the status or the I/O failure
     */
    void post(byte[] body, Map<String, String> headers) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(endpoint)
                .timeout(options.requestTimeout())
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(builder::header);
        HttpRequest request = builder.build();
        Optional<Failure> failure = attempt(request);
        for (int retry = 0;
                retry < options.retries() && failure.filter(Failure::retriable).isPresent();
                retry++) {
            failure = attempt(request);
        }
        if (failure.isPresent()) {
            throw failure.get().exception();
        }
    }

    private Optional<Failure> attempt(HttpRequest request) {
        // The answer's body is read only for errors (a snippet for the message); a 2xx body is discarded.
        HttpResponse.BodyHandler<byte[]> handler = info -> info.statusCode() / 100 == 2
                ? HttpResponse.BodySubscribers.replacing(new byte[0])
                : HttpResponse.BodySubscribers.ofByteArray();
        CompletableFuture<HttpResponse<byte[]>> future = client.sendAsync(request, handler);
        try {
            // HttpRequest.timeout covers the wait for headers; this bounds the body too.
            HttpResponse<byte[]> response = future.get(options.requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
            return status(response);
        } catch (TimeoutException e) {
            future.cancel(true);
            return Optional.of(timeout(e));
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            return Optional.of(cause instanceof HttpTimeoutException ? timeout(cause) : unreachable(cause));
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            return Optional.of(
                    new Failure(new SinkException(sink + ": interrupted while sending to " + shownEndpoint, e), false));
        }
    }

    private Optional<Failure> status(HttpResponse<byte[]> response) {
        int status = response.statusCode();
        if (status / 100 == 2) {
            return Optional.empty();
        }
        boolean retriable = status == 408 || status == 429 || status >= 500;
        return Optional.of(new Failure(
                new SinkException(
                        sink + ": " + shownEndpoint + " answered HTTP " + status + snippet(response.body()),
                        null,
                        !retriable,
                        RetryAfter.parse(response.headers().firstValue("Retry-After"), Instant.now())),
                retriable));
    }

    private Failure timeout(Throwable cause) {
        return new Failure(
                new SinkException(
                        sink + ": no answer from " + shownEndpoint + " within "
                                + options.requestTimeout().toMillis() + " ms",
                        cause),
                true);
    }

    private Failure unreachable(Throwable cause) {
        String kind = cause instanceof IOException ? "cannot reach " : "failed sending to ";
        return new Failure(new SinkException(sink + ": " + kind + shownEndpoint + ": " + cause, cause), true);
    }

    private static String snippet(byte[] body) {
        if (body.length == 0) {
            return "";
        }
        String text = new String(body, 0, Math.min(body.length, SNIPPET_CHARS * 4), StandardCharsets.UTF_8)
                .replaceAll("\\s+", " ")
                .strip();
        return ": " + (text.length() > SNIPPET_CHARS ? text.substring(0, SNIPPET_CHARS) + "…" : text);
    }

    @Override
    public void close() {
        // Waits for an in-flight request, which its timeout bounds, so that the last batch is not cut off.
        client.close();
    }

    private record Failure(SinkException exception, boolean retriable) {}
}
