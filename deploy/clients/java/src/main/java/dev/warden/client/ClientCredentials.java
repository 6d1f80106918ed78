package dev.warden.client;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A service agent bound as an OAuth client (docs/agents-oauth.md): access tokens from the client-credentials grant,
 * kept until shortly before they expire and then fetched again. Build it with {@link WardenClient#clientCredentials}.
 */
public final class ClientCredentials extends RenewingCredentials {
    private final String clientId;
    private final String clientSecret;
    private final Optional<String> scope;

    ClientCredentials(OAuthTokens tokens, String clientId, String clientSecret, Optional<String> scope) {
        super(tokens);
        this.clientId = clientId;
        this.clientSecret = clientSecret;
        this.scope = scope;
    }

    @Override
    OAuthTokens.Issued renew() {
        Map<String, String> form = new LinkedHashMap<>();
        form.put("grant_type", "client_credentials");
        form.put("client_id", clientId);
        form.put("client_secret", clientSecret);
        scope.ifPresent(s -> form.put("scope", s));
        return tokens().issued(tokens().post("token_endpoint", form));
    }
}
