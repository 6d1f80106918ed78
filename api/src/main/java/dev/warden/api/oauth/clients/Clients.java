package dev.warden.api.oauth.clients;

import dev.warden.api.errors.OAuthException;
import java.util.Optional;

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

    private final ClientRepository repository;
    private final ClientMetadataDocuments documents;
    private final Source agents;

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
            return agents.find(clientId);
        }
        return repository.find(clientId);
    }
}
