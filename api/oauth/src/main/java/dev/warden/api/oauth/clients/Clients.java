package dev.warden.api.oauth.clients;

import dev.warden.api.errors.OAuthException;
import dev.warden.runtime.cache.BoundedCache;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Finds a client by {@code client_id}: a registered one, the one a metadata document URL describes, or a service
 * agent bound to OAuth (id {@code agt_...}, {@link Source}).
 */
public final class Clients {
    private static final int MAX_CLIENT_ID = 2000;
    private static final String AGENT_PREFIX = "agt_";

    /** Clients that are not registered here but derived from something else (bound service agents). */
    @FunctionalInterface
    public interface Source {
        Optional<OAuthClient> find(String clientId);
    }

    /** Registered clients never change (no client management yet), so a found one is kept for a while. */
    private static final long KEEP_NANOS = TimeUnit.SECONDS.toNanos(60);

    private static final int MAX_CACHED = 10_000;

    private record Cached(OAuthClient client, long until) {}

    private final ClientRepository repository;
    private final ClientMetadataDocuments documents;
    private final Source agents;
    private final BoundedCache<String, Cached> registered = new BoundedCache<>(MAX_CACHED);

    public Clients(ClientRepository repository, ClientMetadataDocuments documents, Source agents) {
        this.repository = repository;
        this.documents = documents;
        this.agents = agents;
    }

    /**
     * The client {@code clientId}, empty when unknown.
     *
     * @throws OAuthException {@code invalid_client} when its metadata document is not acceptable
     */
    public Optional<OAuthClient> find(String clientId) {
        if (clientId.isEmpty() || clientId.length() > MAX_CLIENT_ID) {
            return Optional.empty();
        }
        if (ClientMetadataDocuments.isDocumentUrl(clientId)) {
            return Optional.of(documents.fetch(clientId));
        }
        if (clientId.startsWith(AGENT_PREFIX)) {
            // Remembered by the source per agent version only: rotating or revoking the agent ends its client at once.
            return agents.find(clientId);
        }
        long now = System.nanoTime();
        Cached cached = registered.get(clientId);
        if (cached != null && now - cached.until() < 0) {
            return Optional.of(cached.client());
        }
        Optional<OAuthClient> found = repository.find(clientId);
        found.ifPresent(c -> registered.put(clientId, new Cached(c, now + KEEP_NANOS)));
        return found;
    }
}
