package dev.warden.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;

/**
 * The HTTP underneath every call: one pooled {@link HttpClient} (keep-alive connections, reused across threads),
 * JSON in and out, and every answer that is not 2xx turned into a {@link WardenException} read from the problem
 * body (or an OAuth error body).
 */
final class Transport {
    static final ObjectMapper JSON = new ObjectMapper();

    private final URI base;
    private final HttpClient http;
    private final Duration timeout;
    private final String userAgent;

    Transport(URI base, HttpClient http, Duration timeout, String userAgent) {
        String text = base.toString();
        this.base = URI.create(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
        this.http = http;
        this.timeout = timeout;
        this.userAgent = userAgent;
    }

    URI base() {
        return base;
    }

    HttpClient http() {
        return http;
    }

    /** {@code path} (with its query) under the base URL. */
    URI uri(String path) {
        return URI.create(base + path);
    }

    HttpRequest.Builder request(String path, Optional<String> bearer) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(path))
                .timeout(timeout)
                .header("User-Agent", userAgent)
                .header("Accept", "application/json");
        bearer.ifPresent(t -> b.header("Authorization", "Bearer " + t));
        return b;
    }

    /** Sends {@code request}; returns the JSON body of a 2xx (a missing node for 204), throws otherwise. */
    JsonNode json(HttpRequest request) {
        HttpResponse<byte[]> response = send(request, HttpResponse.BodyHandlers.ofByteArray());
        byte[] body = response.body();
        if (response.statusCode() / 100 != 2) {
            throw error(response.statusCode(), response.headers(), body);
        }
        if (body.length == 0) {
            return JSON.missingNode();
        }
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new WardenException(
                    response.statusCode(),
                    "invalid_response",
                    "the answer of " + request.uri().getPath() + " is not JSON",
                    List.of(),
                    response.headers().firstValue("X-Request-Id").orElse(""),
                    Optional.empty(),
                    e);
        }
    }

    /** Sends {@code request}; returns the body as a stream when 2xx (the caller closes it), throws otherwise. */
    HttpResponse<InputStream> stream(HttpRequest request) {
        HttpResponse<InputStream> response = send(request, HttpResponse.BodyHandlers.ofInputStream());
        if (response.statusCode() / 100 != 2) {
            byte[] body;
            try (InputStream in = response.body()) {
                body = in.readNBytes(64 * 1024);
            } catch (IOException e) {
                body = new byte[0];
            }
            throw error(response.statusCode(), response.headers(), body);
        }
        return response;
    }

    <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        try {
            return http.send(request, handler);
        } catch (IOException e) {
            throw WardenException.unreachable(request.method() + " " + request.uri(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw WardenException.unreachable(request.method() + " " + request.uri() + " (interrupted)", e);
        }
    }

    static HttpRequest.BodyPublisher jsonBody(Object value) {
        try {
            return HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(value));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot write the request body as JSON: " + e.getMessage(), e);
        }
    }

    static HttpRequest.BodyPublisher formBody(Map<String, String> form) {
        StringJoiner joined = new StringJoiner("&");
        form.forEach((k, v) -> joined.add(encode(k) + "=" + encode(v)));
        return HttpRequest.BodyPublishers.ofString(joined.toString());
    }

    static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    /**
     * The error an answer stands for: a problem body ({@code code}, {@code detail}, {@code errors},
     * {@code requestId}), an OAuth body ({@code error}, {@code error_description}), or the bare status.
     */
    static WardenException error(int status, java.net.http.HttpHeaders headers, byte[] body) {
        JsonNode problem;
        try {
            problem = body.length == 0 ? JSON.missingNode() : JSON.readTree(body);
        } catch (IOException e) {
            problem = JSON.missingNode();
        }
        if (problem == null) {
            problem = JSON.missingNode();
        }
        if (problem.path("error").isObject()) {
            problem = problem.path("error"); // the SPEC's 429 body: {"error": {"code", "message", "details"}}
        }
        String code = problem.path("code").asText(problem.path("error").asText(""));
        if (code.isEmpty()) {
            code = "http_" + status;
        }
        String detail = problem.path("detail")
                .asText(problem.path("error_description")
                        .asText(problem.path("message")
                                .asText(problem.path("title").asText(""))));
        List<WardenException.FieldError> errors = new ArrayList<>();
        for (JsonNode e : problem.path("errors")) {
            errors.add(new WardenException.FieldError(
                    e.path("field").asText(), e.path("message").asText()));
        }
        String requestId = problem.path("requestId")
                .asText(headers.firstValue("X-Request-Id").orElse(""));
        Optional<Duration> retryAfter = headers.firstValue("Retry-After").flatMap(Transport::seconds);
        return new WardenException(status, code, detail, errors, requestId, retryAfter, null);
    }

    private static Optional<Duration> seconds(String value) {
        try {
            long s = Long.parseLong(value.trim());
            return s < 0 ? Optional.empty() : Optional.of(Duration.ofSeconds(s));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
