package dev.warden.api.oauth.clients;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A client of the authorization server: registered (RFC 7591), or described by a Client ID Metadata Document
 * whose URL is its {@code client_id}.
 *
 * @param secretHash      SHA-256 of the secret of a confidential client; empty for a public client
 * @param authMethod      {@code none}, {@code client_secret_basic} or {@code client_secret_post}
 * @param metadata        the metadata as registered (answered at registration, never with the secret)
 * @param registeredVia   {@code mcp} or {@code oauth} (registered by anyone the gate let through),
 *                        {@link #VETTED} (with an initial access token), {@code metadata-document}, or
 *                        {@code agent} (a bound service agent), or {@code built-in} (the CLI's public client,
 *                        {@code warden-cli}, seeded by migration V37)
 */
public record OAuthClient(
        String clientId,
        Optional<byte[]> secretHash,
        Optional<Instant> secretExpiresAt,
        String clientName,
        List<String> redirectUris,
        String authMethod,
        List<String> grantTypes,
        Optional<String> scope,
        ObjectNode metadata,
        String registeredVia,
        Instant createdAt) {

    public static final String NONE = "none";
    public static final String BASIC = "client_secret_basic";
    public static final String POST = "client_secret_post";
    /** How a client registered with a valid initial access token (its redirect URIs were vetted) was registered. */
    public static final String VETTED = "initial-access-token";

    public OAuthClient {
        redirectUris = List.copyOf(redirectUris);
        grantTypes = List.copyOf(grantTypes);
    }

    /** True for a client that has no secret (PKCE is its only proof). */
    public boolean isPublic() {
        return secretHash.isEmpty();
    }

    /**
     * True when the authorization server may send error redirects to this client's redirect URIs before the user
     * has seen the consent page (RFC 9700 section 4.11.2): only for a client an administrator vetted. Anyone can
     * register a client, or publish a metadata document, naming any site; for those an error is a page.
     */
    public boolean redirectsVetted() {
        return VETTED.equals(registeredVia);
    }

    /**
     * The client as a user is shown it: its registered name (its id when it has none). A metadata document names
     * itself, so its host is added: a document anywhere could claim to be someone else (MCP authorization,
     * "Client ID Metadata Documents").
     */
    public String displayName() {
        String name = clientName.isEmpty() ? clientId : clientName;
        return ClientMetadataDocuments.isDocumentUrl(clientId)
                ? name + " (" + URI.create(clientId).getHost() + ")"
                : name;
    }

    /** True when the client registered grant type {@code grantType}. */
    public boolean allows(String grantType) {
        return grantTypes.contains(grantType);
    }
}
