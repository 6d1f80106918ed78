package dev.warden.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.warden.pipeline.contract.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/** A small HTTP client for tests against the real server. */
public final class Http {
    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI base;

    public Http(URI base) {
        this.base = base;
    }

    /** The server's base URI. */
    public URI baseUri() {
        return base;
    }

    /** A response with its body parsed as JSON when it is JSON. */
    public record Response(int status, HttpResponse<String> raw, JsonNode json) {
        public Optional<String> header(String name) {
            return raw.headers().firstValue(name);
        }

        public String body() {
            return raw.body();
        }
    }

    public Response get(String path, String token) {
        return send(builder(path, token).GET());
    }

    public Response delete(String path, String token) {
        return send(builder(path, token).DELETE());
    }

    public Response post(String path, String token, String json) {
        return send(builder(path, token)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    public Response post(String path, String token) {
        return send(builder(path, token).POST(HttpRequest.BodyPublishers.noBody()));
    }

    public Response put(String path, String token, String json) {
        return send(builder(path, token)
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json)));
    }

    public Response patch(String path, String token, String json) {
        return send(builder(path, token)
                .header("Content-Type", "application/json")
                .method("PATCH", HttpRequest.BodyPublishers.ofString(json)));
    }

    /** Sends a request built by the caller (custom headers, content types). */
    public Response send(HttpRequest.Builder request) {
        try {
            HttpResponse<String> res = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Response(res.statusCode(), res, parse(res));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A request builder for {@code path}, with a bearer token unless {@code token} is null. */
    public HttpRequest.Builder builder(String path, String token) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return b;
    }

    private static JsonNode parse(HttpResponse<String> res) {
        String type = res.headers().firstValue("Content-Type").orElse("");
        if (!type.contains("json") || res.body().isEmpty()) {
            return MissingNode.getInstance();
        }
        try {
            return Json.mapper().readTree(res.body());
        } catch (IOException e) {
            throw new AssertionError("response claims JSON but is not: " + res.body(), e);
        }
    }
}
