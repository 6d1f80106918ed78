package dev.warden.api.webhooks;

import dev.warden.api.access.AccessPolicy;
import dev.warden.api.access.Principal;
import dev.warden.api.errors.ConflictException;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.ForbiddenException;
import dev.warden.api.errors.NotFoundException;
import dev.warden.api.http.ListPaging;
import dev.warden.pipeline.contract.EventType;
import dev.warden.runtime.db.Keyset;
import dev.warden.sinks.webhooks.WebhookSigner;
import java.net.URI;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;

/**
 * Webhook endpoints as library operations: create, list, read, delete. Who may do what:
 *
 * <ul>
 *   <li>the administrator and users manage endpoints; agent tokens are refused (403);</li>
 *   <li>an endpoint belongs to its creator; the administrator sees every endpoint, a user only theirs, and an
 *       endpoint the caller may not see is reported as not found (404), so ids do not leak.</li>
 * </ul>
 *
 * The target URL is checked (form and SSRF guard) while parsing the request, see {@link WebhookJson}. The
 * signing secret is minted here and returned once. Thread-safe.
 */
public final class WebhookService {
    /** Most endpoints one owner may have. */
    static final int MAX_PER_OWNER = 100;

    private final WebhookRepository repository;
    private final InstantSource clock;

    public WebhookService(WebhookRepository repository, InstantSource clock) {
        this.repository = repository;
        this.clock = clock;
    }

    /** What {@link #create} needs; {@code eventTypes} empty means every type. */
    public record NewWebhook(URI url, List<EventType> eventTypes, Optional<String> description) {}

    /** A new endpoint with its signing secret, shown this once. */
    public record Created(Webhook webhook, String secret) {
        @Override
        public String toString() {
            return "Created[webhook=" + webhook.id() + ", secret=****]";
        }
    }

    /** Creates an endpoint owned by {@code caller}. */
    public Created create(Principal caller, NewWebhook request) {
        Webhook.Owner owner = owner(caller);
        if (repository.countOwnedBy(owner) >= MAX_PER_OWNER) {
            throw new ConflictException(
                    ErrorCode.CONFLICT, "at most " + MAX_PER_OWNER + " webhook endpoints per owner; delete one first");
        }
        Webhook webhook = new Webhook(
                Webhook.newId(),
                owner,
                request.url(),
                request.eventTypes(),
                request.description(),
                WebhookStatus.ACTIVE,
                clock.instant().truncatedTo(ChronoUnit.MILLIS));
        String secret = WebhookSigner.newSecret();
        repository.insert(webhook, secret);
        return new Created(webhook, secret);
    }

    /** The endpoints {@code caller} may see: all for the administrator, else their own. */
    public List<Webhook> list(Principal caller) {
        Webhook.Owner owner = owner(caller);
        return owner.isAdmin() ? repository.listAll() : repository.listOwnedBy(owner);
    }

    /**
     * One page of what {@link #list} answers, in the same order (an owner has few endpoints: the page is cut from
     * the whole list).
     */
    public ListPaging.Page<Webhook> page(Principal caller, ListPaging.Request request) {
        List<Webhook> all = list(caller);
        return ListPaging.read(
                request,
                (after, limit) -> all.stream()
                        .filter(w ->
                                after.map(a -> position(w).compareTo(a) > 0).orElse(true))
                        .limit(limit)
                        .toList(),
                w -> true,
                WebhookService::position);
    }

    private static Keyset position(Webhook webhook) {
        return new Keyset(webhook.createdAt(), webhook.id());
    }

    /** Endpoint {@code id}, if {@code caller} may see it. */
    public Webhook get(Principal caller, String id) {
        Webhook.Owner owner = owner(caller);
        return repository
                .find(id)
                .filter(w -> owner.isAdmin() || w.owner().equals(owner))
                .orElseThrow(() -> new NotFoundException(ErrorCode.WEBHOOK_NOT_FOUND, "no such webhook endpoint"));
    }

    /** Deliveries shown per endpoint. */
    public static final int RECENT_DELIVERIES = 20;

    /** The endpoint's latest deliveries (newest first), when the caller may see it. */
    public List<dev.warden.sinks.webhooks.WebhookDelivery> deliveries(Principal caller, String id) {
        return repository.recentDeliveries(get(caller, id).id(), RECENT_DELIVERIES);
    }

    /**
     * Disables the endpoint (it receives nothing until enabled; events meanwhile are not kept for it) or enables it
     * again, when the caller may see it.
     */
    public Webhook setActive(Principal caller, String id, boolean active) {
        Webhook webhook = get(caller, id);
        repository.setActive(webhook.id(), active, clock.instant());
        return get(caller, id);
    }

    /** Deletes endpoint {@code id}; deliveries to it stop (queued ones are not sent). */
    public void delete(Principal caller, String id) {
        get(caller, id);
        repository.delete(id);
    }

    /**
     * The owner {@code caller} creates endpoints as.
     *
     * @throws ForbiddenException for an agent
     */
    static Webhook.Owner owner(Principal caller) {
        return new Webhook.Owner(AccessPolicy.webhookOwner(caller));
    }
}
