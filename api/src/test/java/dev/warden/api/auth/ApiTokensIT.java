package dev.warden.api.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code /auth/tokens}: admin-issued user API tokens, {@code current} describe and revoke. Users creating
 * their own tokens from a session is covered by {@code UsersIT}.
 */
class ApiTokensIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform();

    @Test
    void adminIssuesTokenShownOnceAndCurrentDescribesIt() {
        Http http = warden.http();
        Http.Response created = http.post("/auth/tokens", warden.adminToken(), "{\"name\":\"ci\",\"userId\":\"dana\"}");
        assertThat(created.status()).isEqualTo(201);
        String token = created.json().get("token").asText();
        assertThat(token).startsWith("wdn_api_");
        assertThat(created.json().get("userId").asText()).isEqualTo("dana");

        Http.Response current = http.get("/auth/tokens/current", token);
        assertThat(current.status()).isEqualTo(200);
        assertThat(current.json().get("id").asText()).isEqualTo(created.json().get("id").asText());
        assertThat(current.json().get("name").asText()).isEqualTo("ci");
        assertThat(current.json().has("token")).isFalse();
    }

    @Test
    void deleteCurrentRevokesTheTokenImmediately() {
        Http http = warden.http();
        String token = http.post("/auth/tokens", warden.adminToken(), "{\"name\":\"tmp\",\"userId\":\"erin\"}")
                .json().get("token").asText();
        assertThat(http.delete("/auth/tokens/current", token).status()).isEqualTo(204);
        assertThat(http.get("/auth/tokens/current", token).status()).isEqualTo(401);
        assertThat(http.get("/agents", token).status()).isEqualTo(401);
    }

    @Test
    void anApiTokenCannotMintTokensAndCurrentAcceptsOnlyApiTokens() {
        Http http = warden.http();
        String user = http.post("/auth/tokens", warden.adminToken(), "{\"name\":\"a\",\"userId\":\"fay\"}")
                .json().get("token").asText();
        assertThat(http.post("/auth/tokens", user, "{\"name\":\"b\",\"userId\":\"fay\"}").status()).isEqualTo(403);
        assertThat(http.get("/auth/tokens/current", warden.adminToken()).status()).isEqualTo(403);
        Http.Response bad = http.post("/auth/tokens", warden.adminToken(), "{\"name\":\"\",\"userId\":\"has space\"}");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.json().get("errors").findValuesAsText("field")).containsExactlyInAnyOrder("name", "userId");
    }
}
