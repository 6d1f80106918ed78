package dev.warden.api.oauth.clients;

/**
 * The names of the grant types Warden's token endpoint knows by itself (RFC 6749, 8628, 8693). Which grant types
 * the server offers is not decided here but by the list of {@code TokenGrant}s the server is built with; these are
 * the names its own grants, the authorization endpoint and the clients of bound service agents refer to.
 */
public final class GrantTypes {
    public static final String AUTHORIZATION_CODE = "authorization_code";
    public static final String REFRESH_TOKEN = "refresh_token";
    public static final String CLIENT_CREDENTIALS = "client_credentials";
    public static final String DEVICE_CODE = "urn:ietf:params:oauth:grant-type:device_code";
    public static final String TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
    /** OpenID CIBA Core 1.0, poll mode: an agent's client redeems its owner's approval. */
    public static final String CIBA = "urn:openid:params:grant-type:ciba";

    private GrantTypes() {}
}
