package dev.warden.launcher;

import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * {@code warden probe [URL]}: a health check that needs nothing but the JVM, for container images that carry
 * no {@code curl} or {@code wget} (Docker Compose's {@code healthcheck}, exec probes). It GETs the URL (default
 * {@value #DEFAULT_URL}) with a {@value #TIMEOUT_SECONDS} s connect and request timeout, prints one line, and
 * returns 0 when the answer is 200 and 1 otherwise (another status, a refused connection, a timeout, a bad URL).
 */
public final class Probe {
    /** What {@code probe} checks when given no URL: this process's own health, on the default port. */
    public static final String DEFAULT_URL = "http://127.0.0.1:8080/observe/health";

    static final int TIMEOUT_SECONDS = 2;

    private Probe() {}

    /** Probes {@link #DEFAULT_URL}; see {@link #run(String, PrintStream)}. */
    public static int run(PrintStream out) {
        return run(DEFAULT_URL, out);
    }

    /** GETs {@code target} and prints one line to {@code out}; returns 0 on a 200 answer, else 1. */
    public static int run(String target, PrintStream out) {
        Duration timeout = Duration.ofSeconds(TIMEOUT_SECONDS);
        try (HttpClient client = HttpClient.newBuilder().connectTimeout(timeout).build()) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(target))
                    .timeout(timeout)
                    .GET()
                    .build();
            int status =
                    client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
            out.printf("probe: %s %d%n", target, status);
            return status == 200 ? 0 : 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            out.printf("probe: %s interrupted%n", target);
            return 1;
        } catch (Exception e) {
            // IOException (refused, reset, timed out) and IllegalArgumentException (a malformed URL) alike.
            out.printf(
                    "probe: %s failed: %s%n",
                    target, e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
            return 1;
        }
    }
}
