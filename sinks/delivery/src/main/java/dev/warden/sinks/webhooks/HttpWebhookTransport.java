package dev.warden.sinks.webhooks;

import dev.warden.runtime.outbound.GuardedHttp;
import dev.warden.runtime.outbound.TargetGuard;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * {@link WebhookTransport} on {@link GuardedHttp}: HTTP/1.1, the connection made only to addresses the SSRF guard
 * passed at that moment (no window between the check and the connect), redirects never followed (a redirect could
 * lead past the guard), at most a few KiB of the answer read and the rest dropped with the connection, and one
 * deadline bounding connect, headers and body alike.
 */
public final class HttpWebhookTransport implements WebhookTransport {
    /** How much of a receiver's answer is read (it is discarded; reading a little keeps the connection reusable). */
    private static final int ANSWER_BYTES = 8 * 1024;

    private final GuardedHttp http;

    public HttpWebhookTransport(TargetGuard guard, Duration timeout) {
        this.http = new GuardedHttp(guard, timeout, Optional.empty());
    }

    @Override
    public int post(URI url, Map<String, String> headers, byte[] body) throws IOException {
        return http.send("POST", url, headers, Optional.of(body), ANSWER_BYTES).status();
    }

    @Override
    public void close() {
        http.close();
    }
}
