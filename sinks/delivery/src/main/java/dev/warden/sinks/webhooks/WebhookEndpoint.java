package dev.warden.sinks.webhooks;

import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.StreamEvent;
import java.net.URI;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

/**
 * An active webhook endpoint as the delivery worker sees it. {@link #toString()} never shows the secret, nor
 * the URL (whose path or query may carry a credential of the receiver).
 *
 * @param id         the endpoint's id
 * @param url        where events are POSTed
 * @param eventTypes the types it receives; empty means every type, including types added later
 * @param audience   whose events it may receive: empty for an endpoint of the administrator (every event), else
 *                   the owning user's id (events whose {@code userId} is that user)
 * @param secret     the signing secret in clear ({@code whsec_...})
 * @param createdAt  when it was created; it receives events that happened at or after that instant
 */
public record WebhookEndpoint(
        String id, URI url, Set<EventType> eventTypes, Optional<String> audience, String secret, Instant createdAt) {

    public WebhookEndpoint {
        eventTypes = Set.copyOf(eventTypes);
    }

    /** True when this endpoint is to receive {@code event}: its owner may see it and it subscribed to its type. */
    public boolean accepts(StreamEvent event) {
        return (eventTypes.isEmpty() || eventTypes.contains(event.type()))
                && audience.map(user -> event.userId().map(user::equals).orElse(false))
                        .orElse(true)
                && !event.timestamp().isBefore(createdAt);
    }

    @Override
    public String toString() {
        return "WebhookEndpoint[id=" + id + ", eventTypes=" + eventTypes + ", audience="
                + audience.orElse("(everything)") + ", createdAt=" + createdAt + "]";
    }
}
