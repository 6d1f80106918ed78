package dev.warden.sinks.webhooks;

import java.time.Instant;
import java.util.List;

/**
 * Where the delivery worker learns which endpoints exist. Implemented by the API module over its database;
 * the worker reads it before dispatching each batch of events and about once a second while idle and awake (not while
 * it dozes: {@link WebhookWorker}).
 */
public interface WebhookDirectory {
    /**
     * Every active endpoint, with its secret in clear. Endpoints whose secret cannot be read are left out.
     *
     * @throws RuntimeException when the directory cannot be read; the worker then retries the batch later
     */
    List<WebhookEndpoint> activeEndpoints();

    /** Marks an endpoint {@code disabled} (its receiver answered 410 Gone); no-op when it no longer exists. */
    void disable(String endpointId, Instant at);

    /**
     * Keeps how the worker finished with one event for one endpoint (the latest ones per endpoint). A failure is
     * the worker's to log and ignore: the record is for people, never a reason to deliver again.
     */
    void recordDelivery(WebhookDelivery delivery);
}
