package dev.warden.api.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.testing.Http;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Users, agents and token exchange over HTTP, for the tests of agents in OAuth: users signed up with a name of
 * their own, their tokens through the code flow of one registered client, agents, and exchange requests of that
 * client.
 */
public final class AgentOAuth {
    public static final String EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
    public static final String ACCESS = "urn:ietf:params:oauth:token-type:access_token";
    public static final String READ_AGENTS = "[{\"resource\":\"agents\",\"actions\":[\"read\"]}]";

    /** A signed-up user: its id and session token. */
    public record User(String id, String session) {}

    private final Http http;
    private final OAuthDriver driver;
    private final String client;
    private final String usernamePrefix;
    private int users;

    /**
     * @param client         the public client (with the code and token-exchange grants) tokens are obtained with
     * @param usernamePrefix what the usernames start with (a number follows)
     */
    public AgentOAuth(Http http, String client, String usernamePrefix) {
        this.http = http;
        this.driver = new OAuthDriver(http);
        this.client = client;
        this.usernamePrefix = usernamePrefix;
    }

    /**
     * A fixture with a new "Agent runtime" client: public, with the code, refresh and token-exchange grants and
     * {@code moreGrantTypes}, redirecting to {@link OAuthDriver#REDIRECT}.
     */
    public static AgentOAuth withRuntimeClient(Http http, String usernamePrefix, String... moreGrantTypes) {
        StringBuilder grants = new StringBuilder("\"authorization_code\",\"refresh_token\",\"" + EXCHANGE + "\"");
        for (String grant : moreGrantTypes) {
            grants.append(",\"").append(grant).append('"');
        }
        Http.Response reg = http.post(
                "/mcp/register",
                null,
                "{\"client_name\":\"Agent runtime\",\"redirect_uris\":[\"" + OAuthDriver.REDIRECT
                        + "\"],\"grant_types\":[" + grants + "],\"token_endpoint_auth_method\":\"none\"}");
        assertThat(reg.status()).as(reg.body()).isEqualTo(201);
        return new AgentOAuth(http, reg.json().get("client_id").asText(), usernamePrefix);
    }

    /** The client tokens are obtained with. */
    public String client() {
        return client;
    }

    /** A new user, signed up. */
    public synchronized User newUser() {
        Http.Response r = http.post(
                "/auth/sign-up",
                null,
                "{\"username\":\"" + usernamePrefix + (++users) + "\",\"password\":\"a long enough password\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return new User(
                r.json().get("user").get("id").asText(), r.json().get("token").asText());
    }

    /** The user's access token for the REST API with {@code scope}, through the code flow. */
    public String userToken(User user, String scope) {
        OAuthDriver.Pkce pkce = OAuthDriver.Pkce.fresh();
        Map<String, String> request = OAuthDriver.request(client, pkce, "st");
        request.put("scope", scope);
        URI back = driver.authorize(user.session(), request);
        Http.Response token = driver.exchange(client, OAuthDriver.query(back).get("code"), pkce);
        assertThat(token.status()).as(token.body()).isEqualTo(200);
        return token.json().get("access_token").asText();
    }

    /** An agent created by {@code owner} (as bearer): {@code {id, token, ...}}. */
    public JsonNode agent(String bearer, String ownerId, String type, String permissions, String extra) {
        Http.Response r = http.post(
                "/agents",
                bearer,
                "{\"ownerId\":\"" + ownerId + "\",\"name\":\"a\",\"type\":\"" + type + "\",\"permissions\":"
                        + permissions + extra + "}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json();
    }

    /** A token-exchange request of the client: {@code subject} for the agent holding {@code actor} (none if null). */
    public Http.Response exchange(String subject, String actor, Map<String, String> extra) {
        Map<String, String> form = new LinkedHashMap<>();
        form.put("grant_type", EXCHANGE);
        form.put("client_id", client);
        form.put("subject_token", subject);
        form.put("subject_token_type", ACCESS);
        if (actor != null) {
            form.put("actor_token", actor);
            form.put("actor_token_type", ACCESS);
        }
        form.putAll(extra);
        return driver.token(form);
    }
}
