package dev.warden.api.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jwt.SignedJWT;
import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.api.users.UsersConfig;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Key rotation with overlap, on a moved clock: a new key is published before it signs, tokens signed by the old
 * key keep verifying while it stays published, and a configured resource of an integrator gets tokens with its
 * audience that Warden's own API refuses and introspection describes.
 */
class SigningKeyRotationIT {
    static final String TOOLS = "https://tools.example.com/mcp";

    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b -> b.users(
                    UsersConfig.builder().argon2(1024, 1, 1).build())
            .rateLimit(RateLimitConfig.builder()
                    .endpoint(AuthEndpoint.OAUTH_AUTHORIZE, 100_000, 60)
                    .endpoint(AuthEndpoint.OAUTH_INTROSPECT, 100_000, 60)
                    .endpoint(AuthEndpoint.OAUTH_REVOKE, 100_000, 60)
                    .endpoint(AuthEndpoint.REGISTRATION, 1000, 60)
                    .build())
            .oauth(OAuthConfig.builder()
                    .keyRotation(Duration.ofDays(1))
                    .accessTokenTtl(Duration.ofHours(3))
                    .resources(List.of(new OAuthConfig.Resource(TOOLS, List.of("tools:run"))))
                    .build()));

    private static String kid(String jwt) throws Exception {
        return SignedJWT.parse(jwt).getHeader().getKeyID();
    }

    private static JsonNode tokens(OAuthDriver driver, String session, String client, Map<String, String> extra) {
        OAuthDriver.Pkce pkce = OAuthDriver.Pkce.fresh();
        Map<String, String> request = OAuthDriver.request(client, pkce, "s");
        request.putAll(extra);
        URI back = driver.authorize(session, request);
        Http.Response token = driver.exchange(client, OAuthDriver.query(back).get("code"), pkce);
        assertThat(token.status()).as(token.body()).isEqualTo(200);
        return token.json();
    }

    @Test
    void keysRotateWithOverlap() throws Exception {
        Http http = warden.http();
        OAuthDriver driver = new OAuthDriver(http);
        String session = driver.signUp("rotation_user");
        String client = driver.registerPublicClient();
        JsonNode first = tokens(driver, session, client, Map.of());
        String oldKid = kid(first.get("access_token").asText());
        assertThat(JWKSet.parse(http.get("/oauth/jwks", null).body()).getKeys()).hasSize(1);

        // Past the rotation point: a new key is made and published, but does not sign yet (pre-publication).
        warden.clock().advance(Duration.ofHours(23).plusMinutes(10));
        String refreshed = driver.token(Map.of(
                        "grant_type",
                        "refresh_token",
                        "refresh_token",
                        first.get("refresh_token").asText(),
                        "client_id",
                        client))
                .json()
                .get("access_token")
                .asText();
        assertThat(kid(refreshed)).isEqualTo(oldKid);
        JWKSet published = JWKSet.parse(http.get("/oauth/jwks", null).body());
        assertThat(published.getKeys()).hasSize(2);

        // An hour later the new key signs; the old one stays published, so its tokens still verify.
        warden.clock().advance(Duration.ofMinutes(70));
        JsonNode second = tokens(driver, session, client, Map.of());
        assertThat(kid(second.get("access_token").asText())).isNotEqualTo(oldKid);
        assertThat(http.get("/agents", refreshed).status()).isEqualTo(200);
        assertThat(JWKSet.parse(http.get("/oauth/jwks", null).body()).getKeyByKeyId(oldKid))
                .isNotNull();
    }

    @Test
    void anIntegratorsResourceGetsTokensWithItsAudience() throws Exception {
        Http http = warden.http();
        OAuthDriver driver = new OAuthDriver(http);
        String session = driver.signUp("resource_user");
        String client = driver.registerPublicClient();
        JsonNode token = tokens(driver, session, client, Map.of("resource", TOOLS, "scope", "tools:run"));
        String access = token.get("access_token").asText();
        assertThat(SignedJWT.parse(access).getJWTClaimsSet().getAudience()).containsExactly(TOOLS);
        assertThat(http.get("/agents", access).status()).isEqualTo(401);
        JsonNode introspected = driver.postForm("/oauth/introspect", Map.of("client_id", client, "token", access), null)
                .json();
        assertThat(introspected.get("active").asBoolean()).isTrue();
        assertThat(introspected.get("aud").asText()).isEqualTo(TOOLS);
        assertThat(introspected.get("scope").asText()).isEqualTo("tools:run");
        assertThat(http.get("/.well-known/oauth-authorization-server", null)
                        .json()
                        .get("scopes_supported")
                        .toString())
                .contains("tools:run");
    }
}
