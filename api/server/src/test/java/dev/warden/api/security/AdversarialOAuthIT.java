package dev.warden.api.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.warden.api.oauth.OAuthDriver;
import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.api.users.UsersConfig;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The attacks the outside review tried that held up, kept as tests so they keep holding (docs/security.md): every
 * variant of a registered redirect URI, PKCE downgrade, parallel reuse of one refresh token, forged access tokens
 * ({@code alg: none}, HS256 keyed with the public key, an attacker's key under a real or injected {@code kid}).
 * Code replay, cross-audience tokens, cursor tampering and cross-organization ids have their tests where those
 * features live (listed in docs/security.md).
 */
class AdversarialOAuthIT {
    static final String REDIRECT = "https://client.example/cb";
    static final String LOOPBACK = "http://127.0.0.1:9/cb";

    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(
            b -> b.users(UsersConfig.builder().argon2(1024, 1, 1).build())
                    .rateLimit(RateLimitConfig.builder()
                            .endpoint(AuthEndpoint.SIGN_UP, 10_000, 60)
                            .endpoint(AuthEndpoint.OAUTH_TOKEN, 10_000, 60)
                            .endpoint(AuthEndpoint.REGISTRATION, 10_000, 60)
                            .endpoint(AuthEndpoint.OAUTH_AUTHORIZE, 10_000, 60)
                            .build()));

    static Http http;
    static OAuthDriver driver;
    static String client;
    static String session;

    @BeforeAll
    static void setUp() {
        http = warden.http();
        driver = new OAuthDriver(http);
        Http.Response reg = http.post(
                "/mcp/register",
                null,
                "{\"redirect_uris\":[\"" + REDIRECT + "\",\"" + LOOPBACK
                        + "\",\"" + OAuthDriver.REDIRECT
                        + "\"],\"grant_types\":[\"authorization_code\",\"refresh_token\"],"
                        + "\"token_endpoint_auth_method\":\"none\"}");
        assertThat(reg.status()).as(reg.body()).isEqualTo(201);
        client = reg.json().get("client_id").asText();
        Http.Response user = http.post(
                "/auth/sign-up",
                null,
                "{\"username\":\"adversary_target\"," + "\"password\":\"a long enough password\"}");
        session = user.json().get("token").asText();
    }

    static Http.Response authorize(Map<String, String> overrides) {
        Map<String, String> request = OAuthDriver.request(client, OAuthDriver.Pkce.fresh(), "s");
        request.putAll(overrides);
        StringBuilder query = new StringBuilder("/oauth/authorize?");
        request.forEach((k, v) -> {
            if (v != null) {
                query.append(k)
                        .append('=')
                        .append(URLEncoder.encode(v, StandardCharsets.UTF_8))
                        .append('&');
            }
        });
        return driver.getWithSession(query.toString(), session);
    }

    /** Fresh tokens of the user: the token response. */
    static JsonNode tokens() {
        OAuthDriver.Pkce pkce = OAuthDriver.Pkce.fresh();
        String code = OAuthDriver.query(driver.authorize(session, OAuthDriver.request(client, pkce, "s")))
                .get("code");
        Http.Response r = driver.exchange(client, code, pkce);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json();
    }

    @Test
    void noVariantOfARegisteredRedirectUriIsAccepted() {
        List<String> variants = List.of(
                REDIRECT + "/",
                "https://CLIENT.example/cb",
                "https://client.example/CB",
                REDIRECT + "?x=1",
                REDIRECT + "#f",
                "https://client.example:443/cb",
                "https://user@client.example/cb",
                "https://client.example.evil.example/cb",
                "https://client.example/cb/../cb",
                "http://client.example/cb",
                "https://client.example/cb%2F..",
                "https://evil.example/?https://client.example/cb",
                "http://localhost:9/cb",
                "http://127.0.0.1:9/cb/x",
                "http://[::1]:9/cb",
                "//client.example/cb",
                "");
        for (String variant : variants) {
            Http.Response r = authorize(Map.of("redirect_uri", variant));
            assertThat(r.status()).as(variant).isEqualTo(400);
            assertThat(r.header("Location")).as(variant).isEmpty();
        }
        // (Empty means "not sent": with three registered URIs the client must name one.)
        // RFC 8252 section 7.3: a loopback redirect may use any port, nothing else may change.
        Http.Response otherPort = authorize(Map.of("redirect_uri", "http://127.0.0.1:41234/cb"));
        assertThat(otherPort.status()).isEqualTo(302);
        assertThat(otherPort.header("Location").orElseThrow()).startsWith("/oauth/consent?");
    }

    @Test
    void pkceCannotBeDowngradedOrSkipped() {
        // No challenge, or the plain method: refused before anything is issued (a page: anyone may register).
        assertThat(authorize(Map.of("code_challenge_method", "plain")).status()).isEqualTo(400);
        Map<String, String> noChallenge = new java.util.HashMap<>(Map.of("code_challenge_method", "S256"));
        noChallenge.put("code_challenge", null);
        Http.Response none = authorize(noChallenge);
        assertThat(none.status()).isEqualTo(400);
        assertThat(none.body()).contains("code_challenge is required");

        // A code issued with a challenge needs its verifier; without one, or with another, it is burnt.
        OAuthDriver.Pkce pkce = OAuthDriver.Pkce.fresh();
        String code = OAuthDriver.query(driver.authorize(session, OAuthDriver.request(client, pkce, "s")))
                .get("code");
        Http.Response noVerifier = driver.token(Map.of(
                "grant_type",
                "authorization_code",
                "code",
                code,
                "redirect_uri",
                OAuthDriver.REDIRECT,
                "client_id",
                client));
        assertThat(noVerifier.status()).isEqualTo(400);
        assertThat(noVerifier.json().get("error").asText()).isIn("invalid_request", "invalid_grant");
        Http.Response other = driver.exchange(client, code, OAuthDriver.Pkce.fresh());
        assertThat(other.json().get("error").asText()).isEqualTo("invalid_grant");
        assertThat(driver.exchange(client, code, pkce).json().get("error").asText())
                .isEqualTo("invalid_grant");
    }

    @Test
    void oneRefreshTokenSentInParallelIsRedeemedAtMostOnceAndTheReuseEndsTheGrant() throws Exception {
        JsonNode first = tokens();
        String refresh = first.get("refresh_token").asText();
        int racers = 8;
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Http.Response>> answers = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(racers)) {
            for (int i = 0; i < racers; i++) {
                Callable<Http.Response> race = () -> {
                    start.await();
                    return driver.token(
                            Map.of("grant_type", "refresh_token", "refresh_token", refresh, "client_id", client));
                };
                answers.add(pool.submit(race));
            }
            start.countDown();
        }
        List<Http.Response> ok = new ArrayList<>();
        for (Future<Http.Response> answer : answers) {
            Http.Response r = answer.get();
            assertThat(r.status()).as(r.body()).isIn(200, 400);
            if (r.status() == 200) {
                ok.add(r);
            } else {
                assertThat(r.json().get("error").asText()).isEqualTo("invalid_grant");
            }
        }
        assertThat(ok).as("at most one racer redeems the token").hasSizeLessThanOrEqualTo(1);
        // Every other racer was a reuse: the whole family is revoked, the winner's new tokens included.
        for (Http.Response winner : ok) {
            assertThat(http.get("/agents", winner.json().get("access_token").asText())
                            .status())
                    .isEqualTo(401);
            assertThat(driver.token(Map.of(
                                    "grant_type",
                                    "refresh_token",
                                    "refresh_token",
                                    winner.json().get("refresh_token").asText(),
                                    "client_id",
                                    client))
                            .status())
                    .isEqualTo(400);
        }
        assertThat(http.get("/agents", first.get("access_token").asText()).status())
                .isEqualTo(401);
    }

    @Test
    void forgedAccessTokensAreRefused() throws Exception {
        SignedJWT real = SignedJWT.parse(tokens().get("access_token").asText());
        assertThat(http.get("/agents", real.serialize()).status()).isEqualTo(200);
        JWTClaimsSet claims = real.getJWTClaimsSet();
        Base64URL payload = real.getPayload().toBase64URL();
        List<String> forged = new ArrayList<>();

        // alg: none, with and without a signature part.
        String noneHeader = Base64URL.encode("{\"alg\":\"none\",\"typ\":\"at+jwt\",\"kid\":\""
                        + real.getHeader().getKeyID() + "\"}")
                .toString();
        forged.add(noneHeader + "." + payload + ".");
        forged.add(noneHeader + "." + payload + "." + real.getSignature());

        // HS256 keyed with the public key, in the forms a confused verifier might use.
        ECKey published = (ECKey) JWKSet.parse(http.get("/oauth/jwks", null).body())
                .getKeyByKeyId(real.getHeader().getKeyID());
        for (byte[] secret : List.of(
                published.toPublicJWK().toJSONString().getBytes(StandardCharsets.UTF_8),
                published.toECPublicKey().getEncoded())) {
            SignedJWT hs = new SignedJWT(
                    new JWSHeader.Builder(JWSAlgorithm.HS256)
                            .type(new JOSEObjectType("at+jwt"))
                            .keyID(real.getHeader().getKeyID())
                            .build(),
                    claims);
            hs.sign(new MACSigner(secret));
            forged.add(hs.serialize());
        }

        // An attacker's own key, under the real kid and under injected ones.
        ECKey attacker = new ECKeyGenerator(Curve.P_256).keyID("attacker").generate();
        for (String kid : List.of(
                real.getHeader().getKeyID(),
                "attacker",
                "../../../../etc/passwd",
                "' OR '1'='1",
                "%00",
                "x".repeat(5_000),
                "https://attacker.example/jwks.json")) {
            SignedJWT jwt = new SignedJWT(
                    new JWSHeader.Builder(JWSAlgorithm.ES256)
                            .type(new JOSEObjectType("at+jwt"))
                            .keyID(kid)
                            .build(),
                    claims);
            jwt.sign(new ECDSASigner(attacker));
            forged.add(jwt.serialize());
        }
        // The real signature over a changed payload (another subject).
        forged.add(real.getHeader().toBase64URL() + "."
                + Base64URL.encode(new JWTClaimsSet.Builder(claims)
                        .subject("usr_someone_else")
                        .build()
                        .toString()) + "." + real.getSignature());

        for (String token : forged) {
            Http.Response r = http.get("/agents", token);
            assertThat(r.status())
                    .as(token.length() > 200 ? token.substring(0, 200) : token)
                    .isEqualTo(401);
            Http.Response introspected =
                    driver.postForm("/oauth/introspect", Map.of("client_id", client, "token", token), null);
            assertThat(introspected.json().toString()).isEqualTo("{\"active\":false}");
        }
    }

    @Test
    void thePagesAndEndpointsKeepTheirSmallerPromises() {
        // The login page sends the browser back only to Warden's own authorization pages.
        for (String target : List.of(
                "https://evil.example/x",
                "//evil.example/x",
                "/oauth/authorize\\evil",
                "javascript:alert(1)",
                "/admin/v1/organizations")) {
            Http.Response page =
                    http.get("/oauth/login?return_to=" + URLEncoder.encode(target, StandardCharsets.UTF_8), null);
            assertThat(page.status()).isEqualTo(200);
            assertThat(OAuthDriver.hiddenFields(page.body()).get("return_to"))
                    .as(target)
                    .isEqualTo("/oauth/authorize");
            // No referrer leaves Warden's pages, and they cannot be framed.
            assertThat(page.header("Referrer-Policy")).contains("no-referrer");
            assertThat(page.header("X-Frame-Options")).contains("DENY");
        }
        // No CORS on the authorization endpoint (RFC 9700 section 2.6): a script elsewhere cannot read it.
        Http.Response cors = http.send(http.builder("/mcp/authorize?client_id=" + client, null)
                .header("Origin", "https://app.example")
                .GET());
        assertThat(cors.header("Access-Control-Allow-Origin")).isEmpty();
        // /mcp takes no request from a foreign origin (DNS rebinding), whatever the credential.
        String initialize = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                + "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}}";
        for (String origin : List.of("https://evil.example", "http://localhost.evil.example")) {
            Http.Response foreign = http.send(http.builder("/mcp", session)
                    .header("Origin", origin)
                    .header("Content-Type", "application/json")
                    .header("Accept", "application/json, text/event-stream")
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString(initialize)));
            assertThat(foreign.status()).as(origin).isEqualTo(403);
        }
        // A client cannot choose its own client_id (RFC 9700 section 4.15).
        Http.Response chosen = http.post(
                "/mcp/register",
                null,
                "{\"client_id\":\"chosen-by-the-client\"," + "\"redirect_uris\":[\"" + REDIRECT
                        + "\"],\"token_endpoint_auth_method\":\"none\"}");
        assertThat(chosen.status()).as(chosen.body()).isEqualTo(201);
        assertThat(chosen.json().get("client_id").asText()).isNotEqualTo("chosen-by-the-client");
    }
}
