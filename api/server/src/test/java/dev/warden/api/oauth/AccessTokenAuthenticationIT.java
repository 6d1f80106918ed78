package dev.warden.api.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.api.users.UsersConfig;
import dev.warden.pipeline.contract.Json;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import dev.warden.testing.TotpSessions;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Access tokens say how their user signed in: RFC 8176 {@code amr} and {@code auth_time}, through a refresh too; and
 * the authorization endpoint honours what a client asks of the sign-in ({@code max_age}, {@code acr_values}).
 */
class AccessTokenAuthenticationIT {
    static final String PASSWORD = "a long enough password";

    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(
            b -> b.users(UsersConfig.builder().argon2(1024, 1, 1).build())
                    .rateLimit(RateLimitConfig.builder()
                            .endpoint(AuthEndpoint.SIGN_IN, 10_000, 60)
                            .endpoint(AuthEndpoint.SIGN_UP, 10_000, 60)
                            .endpoint(AuthEndpoint.REGISTRATION, 1_000, 60)
                            .build()));

    @Test
    void aPasswordSessionsTokenSaysPwdAndWhenTheSessionSignedIn() throws Exception {
        Http http = warden.http();
        OAuthDriver driver = new OAuthDriver(http);
        String session = driver.signUp("amr_" + UUID.randomUUID().toString().substring(0, 8));
        Instant signedIn = Instant.parse(http.get("/auth/session", session)
                .json()
                .at("/session/createdAt")
                .asText());

        JsonNode tokens = tokens(driver, session);
        JsonNode claims = claims(tokens.get("access_token").asText());
        assertThat(claims.get("amr").toString()).isEqualTo("[\"pwd\"]");
        assertThat(claims.get("auth_time").asLong()).isEqualTo(signedIn.getEpochSecond());

        JsonNode refreshed = driver.token(Map.of(
                        "grant_type", "refresh_token",
                        "refresh_token", tokens.get("refresh_token").asText(),
                        "client_id", tokens.get("client_id_used").asText()))
                .json();
        JsonNode again = claims(refreshed.get("access_token").asText());
        assertThat(again.get("amr").toString()).as("kept through a refresh").isEqualTo("[\"pwd\"]");
        assertThat(again.get("auth_time").asLong()).isEqualTo(signedIn.getEpochSecond());
    }

    @Test
    void aSecondFactorSessionsTokenSaysMfa() throws Exception {
        Http http = warden.http();
        OAuthDriver driver = new OAuthDriver(http);
        String name = "mfa_" + UUID.randomUUID().toString().substring(0, 8);
        String first = driver.signUp(name);
        byte[] secret = TotpSessions.enrol(http, warden.clock(), first);
        String session = TotpSessions.signIn(http, warden.clock(), name, PASSWORD, secret);

        JsonNode claims = claims(tokens(driver, session).get("access_token").asText());
        assertThat(claims.get("amr").toString()).isEqualTo("[\"pwd\",\"otp\",\"mfa\"]");
    }

    @Test
    void maxAgeSendsAnOlderSignInBackToTheLoginPageAndZeroDoesNotLoop() throws Exception {
        Http http = warden.http();
        OAuthDriver driver = new OAuthDriver(http);
        String name = "age_" + UUID.randomUUID().toString().substring(0, 8);
        String session = driver.signUp(name);
        String client = driver.registerPublicClient();
        OAuthDriver.Pkce pkce = OAuthDriver.Pkce.fresh();
        Map<String, String> request = OAuthDriver.request(client, pkce, "s");
        request.put("max_age", "60");
        assertThat(location(driver, request, session))
                .as("a minute-old sign-in is young enough")
                .startsWith("/oauth/consent?");

        warden.clock().advance(Duration.ofSeconds(61));
        String login = location(driver, request, session);
        assertThat(login).startsWith("/oauth/login?").contains("why=max_age");
        Http.Response page = http.get(login, null);
        assertThat(page.body()).contains("id=\"notice\"").contains("sign in again");
        String returnTo = OAuthDriver.query(URI.create("http://x" + login)).get("return_to");
        assertThat(returnTo).contains("max_age=60").contains("signed_in_after=");

        // Signing in again, the same request (its marker kept) goes on, with the new sign-in's time in the token.
        request.put("max_age", "0");
        String again = signIn(http, name);
        URI back = driver.authorize(again, withMarker(request, login));
        JsonNode token = driver.exchange(client, OAuthDriver.query(back).get("code"), pkce)
                .json();
        Instant signedIn = Instant.parse(
                http.get("/auth/session", again).json().at("/session/createdAt").asText());
        assertThat(claims(token.get("access_token").asText()).get("auth_time").asLong())
                .isEqualTo(signedIn.getEpochSecond());
        // The old session with that marker is still too old: only a sign-in made after it counts.
        assertThat(location(driver, withMarker(request, login), session)).startsWith("/oauth/login?");
        request.put("max_age", "soon");
        Http.Response bad = driver.getWithSession(OAuthDriver.authorizePath(request), session);
        assertThat(bad.status())
                .as("a max_age that is no number of seconds: a page, as the client is not vetted")
                .isEqualTo(400);
        assertThat(bad.body()).contains("max_age must be a whole number of seconds");
    }

    @Test
    void acrValuesMfaAsksForASecondFactorAndSaysWhenTheUserHasNone() throws Exception {
        Http http = warden.http();
        OAuthDriver driver = new OAuthDriver(http);
        String name = "acr_" + UUID.randomUUID().toString().substring(0, 8);
        String session = driver.signUp(name);
        String client = driver.registerPublicClient();
        OAuthDriver.Pkce pkce = OAuthDriver.Pkce.fresh();
        Map<String, String> request = OAuthDriver.request(client, pkce, "acr-state");
        request.put("acr_values", "urn:example:unknown mfa");
        String login = location(driver, request, session);
        assertThat(login).startsWith("/oauth/login?").contains("why=mfa");
        assertThat(http.get(login, null).body()).contains("two-step verification");

        // Signed in again, still with a password only: the client hears that the requirement is not met.
        String again = signIn(http, name);
        String answer = location(driver, withMarker(request, login), again);
        assertThat(answer).startsWith(OAuthDriver.REDIRECT);
        assertThat(OAuthDriver.query(URI.create(answer)))
                .containsEntry("error", "unmet_authentication_requirements")
                .containsEntry("state", "acr-state");

        // With TOTP, the sign-in proves a second factor and the request goes on.
        byte[] secret = TotpSessions.enrol(http, warden.clock(), again);
        String strong = TotpSessions.signIn(http, warden.clock(), name, PASSWORD, secret);
        assertThat(location(driver, request, strong)).startsWith("/oauth/consent?");
    }

    /** Where the authorization endpoint sends {@code session}'s browser for {@code request}. */
    private static String location(OAuthDriver driver, Map<String, String> request, String session) {
        Http.Response r = driver.getWithSession(OAuthDriver.authorizePath(request), session);
        assertThat(r.status()).as(r.body()).isEqualTo(302);
        return r.header("Location").orElseThrow();
    }

    /** {@code request} with the {@code signed_in_after} marker the login redirect carried. */
    private static Map<String, String> withMarker(Map<String, String> request, String login) {
        String returnTo = OAuthDriver.query(URI.create("http://x" + login)).get("return_to");
        Map<String, String> marked = new java.util.LinkedHashMap<>(request);
        marked.put(
                "signed_in_after",
                OAuthDriver.query(URI.create("http://x" + returnTo)).get("signed_in_after"));
        return marked;
    }

    private static String signIn(Http http, String name) {
        Http.Response r =
                http.post("/auth/sign-in", null, "{\"username\":\"" + name + "\",\"password\":\"" + PASSWORD + "\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json().get("token").asText();
    }

    /** A code flow with {@code session}; the token response, plus the client id under {@code client_id_used}. */
    /**
     * A token verified once is remembered (D188: its signature is not checked again), and still ends at its
     * expiry: introspected, then introspected again past {@code exp}, it is inactive.
     */
    @Test
    void aTokenRememberedAsVerifiedStillExpires() {
        Http http = warden.http();
        OAuthDriver driver = new OAuthDriver(http);
        String session = driver.signUp("exp_" + UUID.randomUUID().toString().substring(0, 8));
        JsonNode tokens = tokens(driver, session);
        String access = tokens.get("access_token").asText();
        String client = tokens.get("client_id_used").asText();
        java.util.function.Supplier<Boolean> active = () -> {
            Http.Response r = driver.postForm("/oauth/introspect", Map.of("token", access, "client_id", client), null);
            assertThat(r.status()).as(r.body()).isEqualTo(200);
            return r.json().get("active").asBoolean();
        };
        assertThat(active.get()).isTrue();
        assertThat(active.get()).as("remembered").isTrue();
        warden.clock().advance(Duration.ofSeconds(tokens.get("expires_in").asLong() + 1));
        assertThat(active.get()).as("past exp").isFalse();
    }

    static JsonNode tokens(OAuthDriver driver, String session) {
        String client = driver.registerPublicClient();
        OAuthDriver.Pkce pkce = OAuthDriver.Pkce.fresh();
        URI back = driver.authorize(session, OAuthDriver.request(client, pkce, "s"));
        Http.Response token = driver.exchange(client, OAuthDriver.query(back).get("code"), pkce);
        assertThat(token.status()).as(token.body()).isEqualTo(200);
        return ((com.fasterxml.jackson.databind.node.ObjectNode) token.json()).put("client_id_used", client);
    }

    static JsonNode claims(String jwt) throws Exception {
        String payload = jwt.split("\\.")[1];
        return Json.mapper().readTree(new String(Base64.getUrlDecoder().decode(payload), StandardCharsets.UTF_8));
    }
}
