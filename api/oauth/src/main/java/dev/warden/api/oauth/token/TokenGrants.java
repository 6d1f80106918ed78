package dev.warden.api.oauth.token;

import dev.warden.api.events.EventOutbox;
import dev.warden.api.events.PublishedEvents;
import dev.warden.api.oauth.OAuthConfig;
import dev.warden.api.oauth.ProtectedResources;
import dev.warden.api.oauth.TokenGrant;
import dev.warden.api.oauth.agents.AgentDirectory;
import dev.warden.api.oauth.authorize.CodeRepository;
import dev.warden.api.oauth.ciba.BackchannelApprovals;
import dev.warden.api.oauth.ciba.BackchannelRequests;
import dev.warden.api.oauth.device.DeviceCodes;
import dev.warden.runtime.db.Transactions;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The grant types this server offers, in the order its metadata lists them: the one list the token endpoint, the
 * discovery document, client registration and the OpenAPI document read ({@link TokenGrant}).
 */
public final class TokenGrants {
    private final List<TokenGrant> grants;
    /** The same grants by type: the token endpoint looks one up per request. */
    private final Map<String, TokenGrant> byType;

    /**
     * @throws IllegalArgumentException when two grants have the same type
     */
    public TokenGrants(List<TokenGrant> grants) {
        Map<String, TokenGrant> byType = new HashMap<>();
        for (TokenGrant grant : grants) {
            if (byType.putIfAbsent(grant.type(), grant) != null) {
                throw new IllegalArgumentException("two token grants of type " + grant.type());
            }
        }
        this.grants = List.copyOf(grants);
        this.byType = Map.copyOf(byType);
    }

    /**
     * Warden's grants (authorization code, refresh token, client credentials, device code, token exchange, CIBA), then
     * {@code extra} (extensions, tests).
     */
    public static TokenGrants standard(
            Transactions transactions,
            CodeRepository codes,
            DeviceCodes deviceCodes,
            BackchannelRequests backchannelRequests,
            BackchannelApprovals backchannelApprovals,
            GrantRepository grants,
            TokenValidity validity,
            EventOutbox outbox,
            PublishedEvents events,
            AccessTokens accessTokens,
            ProtectedResources resources,
            AgentDirectory directory,
            OAuthConfig config,
            InstantSource clock,
            List<TokenGrant> extra) {
        TokenIssuer issuer =
                new TokenIssuer(accessTokens, grants, outbox, config.refreshTokenTtl(), config.grantMaxLifetime());
        AgentTokenIssuer agentIssuer = new AgentTokenIssuer(events, accessTokens, config.effectiveAgentTokenTtl());
        List<TokenGrant> all = new ArrayList<>(List.of(
                new AuthorizationCodeGrant(transactions, codes, grants, issuer, clock),
                new RefreshTokenGrant(grants, issuer, clock),
                new ClientCredentialsGrant(directory, resources, agentIssuer, clock),
                new DeviceCodeGrant(transactions, deviceCodes, issuer, clock),
                new TokenExchangeGrant(accessTokens, grants, validity, directory, resources, agentIssuer, clock),
                new CibaGrant(transactions, backchannelRequests, backchannelApprovals, issuer, clock)));
        all.addAll(extra);
        return new TokenGrants(all);
    }

    /** The grant of type {@code type}, if offered. */
    public Optional<TokenGrant> find(String type) {
        return type == null ? Optional.empty() : Optional.ofNullable(byType.get(type));
    }

    /** Every offered type, in order ({@code grant_types_supported}). */
    public List<String> types() {
        return grants.stream().map(TokenGrant::type).toList();
    }

    /** The types a client may register ({@link TokenGrant#registrable()}). */
    public Set<String> registrable() {
        Set<String> types = new LinkedHashSet<>();
        grants.stream().filter(TokenGrant::registrable).forEach(g -> types.add(g.type()));
        return types;
    }
}
