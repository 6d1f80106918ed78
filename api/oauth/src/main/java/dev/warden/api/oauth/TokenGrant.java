package dev.warden.api.oauth;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.errors.OAuthException;
import dev.warden.api.oauth.clients.OAuthClient;
import java.util.Map;

/**
 * One grant type of the token endpoint. The server's list of grants ({@code TokenGrants}) is the single source of
 * what it offers: the token endpoint dispatches on it, the discovery document's {@code grant_types_supported},
 * client registration's accepted {@code grant_types} and the OpenAPI document's {@code grant_type} enum are read
 * from it. Adding a grant type is one implementation of this interface and one entry in that list.
 */
public interface TokenGrant {
    /** The {@code grant_type} value. */
    String type();

    /**
     * True when a client may list this grant type in its registration metadata (RFC 7591 {@code grant_types}).
     * {@code client_credentials} is not: only bound service agents use it, and their clients are derived.
     */
    default boolean registrable() {
        return true;
    }

    /**
     * The token response for {@code client}, which has authenticated and registered this grant type, asking with
     * {@code form} from {@code ip}: {@code access_token}, {@code token_type}, {@code expires_in}, {@code scope} and
     * what else the grant issues.
     *
     * @throws OAuthException an RFC 6749 error (the token endpoint answers it and records the failure)
     */
    ObjectNode respond(OAuthClient client, Map<String, String> form, String ip);
}
