package dev.warden.sinks.webhooks;

import java.time.Instant;

/**
 * How the worker finished with one event for one endpoint, kept so that the endpoint's owner can see its latest
 * deliveries.
 *
 * @param endpointId the endpoint
 * @param eventId    the event's {@code webhook-id} (the receiver's key for dropping duplicates)
 * @param outcome    {@code delivered} (a 2xx), {@code dropped} (refused, or every attempt failed) or
 *                   {@code disabled} (410 Gone: the endpoint is disabled)
 * @param attempts   how many requests were sent (0 when the target was refused before any)
 * @param last       the last answer: {@code HTTP 200}, {@code HTTP 503}, a network error's kind, a refused target
 * @param finishedAt when the worker finished with it
 */
public record WebhookDelivery(
        String endpointId, String eventId, String outcome, int attempts, String last, Instant finishedAt) {}
