package dev.warden.api.webhooks;

import java.util.List;
import java.util.Optional;

/** Storage of webhook endpoints. Implementations keep the signing secret as their cipher says. */
public interface WebhookRepository {
    /** Stores a new endpoint with its signing secret (in clear; the repository protects it at rest). */
    void insert(Webhook webhook, String secret);

    /** The endpoint {@code id}, if it exists. */
    Optional<Webhook> find(String id);

    /** Every endpoint, oldest first. */
    List<Webhook> listAll();

    /** The endpoints of {@code owner}, oldest first. */
    List<Webhook> listOwnedBy(Webhook.Owner owner);

    /** Number of endpoints of {@code owner}. */
    int countOwnedBy(Webhook.Owner owner);

    /** Deletes endpoint {@code id}; false when there was none. */
    boolean delete(String id);

    /** Sets the endpoint active or disabled (a disabled one receives nothing); false when it does not exist. */
    boolean setActive(String id, boolean active, java.time.Instant at);

    /** The endpoint's latest deliveries, newest first, at most {@code limit}. */
    List<dev.warden.sinks.webhooks.WebhookDelivery> recentDeliveries(String id, int limit);
}
