package dev.warden.api.oauth.token;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.pipeline.contract.Json;

/** The bodies of successful token responses (RFC 6749 section 5.1), as the grants build them. */
final class TokenResponses {
    private TokenResponses() {}

    /** The answer carrying an access token and a refresh token (a user's grant). */
    static ObjectNode pair(TokenIssuer.TokenPair pair) {
        ObjectNode body = access(pair.access());
        body.put("refresh_token", pair.refreshToken());
        body.set("scope", body.remove("scope"));
        return body;
    }

    /** The answer carrying an access token only. */
    static ObjectNode access(AccessTokens.Issued access) {
        return Json.mapper()
                .createObjectNode()
                .put("access_token", access.token())
                .put("token_type", "Bearer")
                .put("expires_in", access.expiresIn())
                .put("scope", String.join(" ", access.claims().scopes()));
    }
}
