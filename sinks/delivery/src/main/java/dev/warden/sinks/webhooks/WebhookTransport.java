package dev.warden.sinks.webhooks;

import java.io.IOException;
import java.net.URI;
import java.util.Map;

/** Sends one webhook POST. Implementations are thread-safe. */
public interface WebhookTransport extends AutoCloseable {
    /**
     * POSTs {@code body} with {@code headers} to {@code url}, following no redirect.
     *
     * @return the HTTP status of the answer
     * @throws IOException on a network failure or when no complete answer came within the timeout
     */
    int post(URI url, Map<String, String> headers, byte[] body) throws IOException, InterruptedException;

    @Override
    default void close() {}
}
