package dev.warden.api.oauth.token;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.oauth.OAuthConfig;
import dev.warden.api.oauth.OAuthDriver;
import dev.warden.api.oauth.TokenGrant;
import dev.warden.api.oauth.clients.OAuthClient;
import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.pipeline.contract.Json;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Adding a grant type is one {@link TokenGrant} and one entry in the server's list (here through
 * {@code OAuthConfig.extraGrants}): the token endpoint dispatches to it, the discovery document lists it, client
 * registration accepts it, and the OpenAPI document's {@code grant_type} enum names it, with nothing else changed.
 */
class PluggableGrantIT {
    static final String ECHO = "urn:example:params:oauth:grant-type:echo";

    /** A grant that answers with a token naming the client and the form's {@code word}. */
    static final class EchoGrant implements TokenGrant {
        @Override
        public String type() {
            return ECHO;
        }

        @Override
        public ObjectNode respond(OAuthClient client, Map<String, String> form, String ip) {
            return Json.mapper()
                    .createObjectNode()
                    .put("access_token", "echo-" + form.getOrDefault("word", ""))
                    .put("token_type", "Bearer")
                    .put("expires_in", 60)
                    .put("client", client.clientId());
        }
    }

    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b -> b.rateLimit(RateLimitConfig.builder()
                    .endpoint(AuthEndpoint.REGISTRATION, 1000, 60)
                    .build())
            .oauth(OAuthConfig.builder().extraGrants(List.of(new EchoGrant())).build()));

    @Test
    void anAddedGrantIsOfferedRegisteredDocumentedAndAnswered() {
        Http http = warden.http();
        JsonNode metadata =
                http.get("/.well-known/oauth-authorization-server", null).json();
        List<String> supported = new ArrayList<>();
        metadata.get("grant_types_supported").forEach(t -> supported.add(t.asText()));
        assertThat(supported)
                .containsExactly(
                        "authorization_code",
                        "refresh_token",
                        "client_credentials",
                        "urn:ietf:params:oauth:grant-type:device_code",
                        "urn:ietf:params:oauth:grant-type:token-exchange",
                        "urn:openid:params:grant-type:ciba",
                        ECHO);

        Http.Response registered = http.post(
                "/mcp/register",
                null,
                "{\"grant_types\":[\"" + ECHO + "\"]," + "\"token_endpoint_auth_method\":\"none\"}");
        assertThat(registered.status()).as(registered.body()).isEqualTo(201);
        String client = registered.json().get("client_id").asText();
        Http.Response unknown = http.post(
                "/mcp/register",
                null,
                "{\"grant_types\":[\"urn:example:other\"]," + "\"token_endpoint_auth_method\":\"none\"}");
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.json().get("error_description").asText()).contains(ECHO);

        OAuthDriver driver = new OAuthDriver(http);
        Http.Response token = driver.token(Map.of("grant_type", ECHO, "client_id", client, "word", "hello"));
        assertThat(token.status()).as(token.body()).isEqualTo(200);
        assertThat(token.json().get("access_token").asText()).isEqualTo("echo-hello");
        assertThat(token.json().get("client").asText()).isEqualTo(client);
        assertThat(token.header("Cache-Control")).contains("no-store");
        // A client that did not register it may not use it.
        Http.Response other = driver.token(Map.of("grant_type", ECHO, "client_id", driver.registerPublicClient()));
        assertThat(other.status()).isEqualTo(400);
        assertThat(other.json().get("error").asText()).isEqualTo("unauthorized_client");

        JsonNode openapi = http.get("/openapi.json", null).json();
        for (String path : List.of("/mcp/token", "/oauth/token")) {
            JsonNode values = openapi.path("paths")
                    .path(path)
                    .at("/post/requestBody/content/"
                            + "application~1x-www-form-urlencoded/schema/properties/grant_type/enum");
            List<String> documented = new ArrayList<>();
            values.forEach(v -> documented.add(v.asText()));
            assertThat(documented).as(path).isEqualTo(supported);
        }
    }
}
