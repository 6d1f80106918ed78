package dev.warden.api.oauth.clients;

import dev.warden.api.errors.OAuthException;
import java.util.Optional;

/** Finds a client by {@code client_id}: a registered one, or the one a metadata document URL describes. */
public final class Clients {
    private static final int MAX_CLIENT_ID = 2000;

    private final ClientRepository repository;
    private final ClientMetadataDocuments documents;

    public Clients(ClientRepository repository, ClientMetadataDocuments documents) {
        this.repository = repository;
        this.documents = documents;
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
        return repository.find(clientId);
    }
}
