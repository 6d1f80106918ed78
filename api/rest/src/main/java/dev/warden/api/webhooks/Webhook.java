package dev.warden.api.webhooks;

import dev.warden.authorizer.domain.Ids;
import dev.warden.authorizer.domain.UserId;
import dev.warden.pipeline.contract.EventType;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A webhook endpoint as the API manages it, without its secret (which is shown once, at creation).
 *
 * @param id          {@code whk_} and 26 base32 characters
 * @param owner       who created it and whose events it may receive
 * @param url         where deliveries are POSTed
 * @param eventTypes  the types it receives, in the order given; empty means every type
 * @param description free text of the owner
 * @param status      active, or disabled after a 410
 * @param createdAt   creation time, millisecond precision; it receives events from this instant on
 */
public record Webhook(
        String id,
        Owner owner,
        URI url,
        List<EventType> eventTypes,
        Optional<String> description,
        WebhookStatus status,
        Instant createdAt) {

    public Webhook {
        eventTypes = List.copyOf(eventTypes);
    }

    /** A new endpoint id. */
    static String newId() {
        return Ids.mint("whk");
    }

    /** The owner of an endpoint: the administrator (receives every event) or a user (receives their events). */
    public record Owner(Optional<UserId> user) {
        public static Owner admin() {
            return new Owner(Optional.empty());
        }

        public static Owner user(UserId id) {
            return new Owner(Optional.of(id));
        }

        public boolean isAdmin() {
            return user.isEmpty();
        }
    }
}
