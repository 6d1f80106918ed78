package dev.warden.sinks.webhooks;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@link WebhookTransport} on the JDK HTTP client: HTTP/1.1 (every receiver speaks it; no h2c upgrade on plain
 * http), redirects never followed (a redirect could lead past the SSRF guard), the answer's body discarded,
 * and one timeout bounding connect, headers and body alike.
 */
public final class HttpWebhookTransport implements WebhookTransport {
    private final HttpClient client;
    private final Duration timeout;

    public HttpWebhookTransport(Duration timeout) {
        this.timeout = timeout;
        this.client = HttpClient.newBuilder()
                .connectTimeout(timeout)
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    @Override
    public int post(URI url, Map<String, String> headers, byte[] body) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(url)
                .timeout(timeout)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(request::header);
        CompletableFuture<HttpResponse<Void>> future =
                client.sendAsync(request.build(), HttpResponse.BodyHandlers.discarding());
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS).statusCode();
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new HttpTimeoutException("no complete answer within " + timeout.toMillis() + " ms");
        } catch (InterruptedException e) {
            future.cancel(true);
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw cause instanceof IOException io ? io : new IOException(cause.toString(), cause);
        }
    }

    @Override
    public void close() {
        client.shutdownNow();
    }
}
