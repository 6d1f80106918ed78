package dev.warden.api.users;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.warden.api.oauth.OAuthDriver;
import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.api.users.totp.Base32;
import dev.warden.api.users.totp.Totp;
import dev.warden.pipeline.contract.Json;
import dev.warden.testing.Chromium;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.openqa.selenium.virtualauthenticator.Credential;
import org.openqa.selenium.virtualauthenticator.VirtualAuthenticator;
import org.openqa.selenium.virtualauthenticator.VirtualAuthenticatorOptions;

/**
 * Passkeys in real headless Chromium with the DevTools virtual authenticator (a CTAP2 platform authenticator that
 * keeps discoverable credentials and verifies the user): registration, passwordless sign-in on the REST API and on
 * the OAuth login page (ending with a code the client redeems), another user's passkey refused, and a cloned
 * authenticator's stale signature counter refused. Pages are opened at {@code http://localhost:<port>}, Warden's
 * relying party id in development (browsers refuse an IP address as one).
 */
class PasskeyBrowserIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(
            b -> b.users(UsersConfig.builder().argon2(1024, 1, 1).build())
                    .rateLimit(RateLimitConfig.builder()
                            .endpoint(AuthEndpoint.REGISTRATION, 100, 60)
                            .endpoint(AuthEndpoint.SIGN_UP, 100, 60)
                            .build()));

    static ChromeDriver browser;
    static HttpServer receiver;
    static final BlockingQueue<String> callbacks = new ArrayBlockingQueue<>(10);
    static String redirectUri;
    static String origin;
    VirtualAuthenticator authenticator;

    @BeforeAll
    static void start() throws Exception {
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/callback", exchange -> {
            callbacks.add(exchange.getRequestURI().getRawQuery());
            byte[] body = "<html><body><p id=\"done\">back</p></body></html>".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "text/html");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        receiver.start();
        redirectUri = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/callback";
        origin = "http://localhost:" + warden.http().baseUri().getPort();
        browser = Chromium.start();
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (receiver != null) {
            receiver.stop(0);
        }
    }

    @BeforeEach
    void freshAuthenticator() {
        authenticator = browser.addVirtualAuthenticator(options());
        browser.get(origin + "/oauth/login");
        browser.manage().deleteAllCookies();
    }

    @AfterEach
    void removeAuthenticator() {
        browser.removeVirtualAuthenticator(authenticator);
    }

    @Test
    void aRegisteredPasskeySignsInAloneEvenWhenTotpIsEnrolled() {
        Http http = warden.http();
        String session = new OAuthDriver(http).signUp(unique("passkey"));
        byte[] secret = Base32.decode(
                http.post("/auth/totp/enrol", session).json().get("secret").asText());
        String code = Totp.code(secret, Totp.step(warden.clock().instant()));
        assertThat(http.post("/auth/totp/confirm", session, "{\"code\":\"" + code + "\"}")
                        .status())
                .isEqualTo(200);

        JsonNode added = register(session, "Laptop");
        assertThat(added.get("status").asInt()).as(added.toString()).isEqualTo(201);
        assertThat(added.at("/body/name").asText()).isEqualTo("Laptop");
        assertThat(added.at("/body/id").asText()).startsWith("pk_");
        JsonNode listed = http.get("/auth/passkeys", session).json().get("passkeys");
        assertThat(listed).hasSize(1);
        assertThat(listed.get(0).get("lastUsedAt").isNull()).isTrue();

        JsonNode signedIn = signInByApi();
        assertThat(signedIn.get("status").asInt()).as(signedIn.toString()).isEqualTo(200);
        String token = signedIn.at("/body/token").asText();
        assertThat(token).as("a session, not a TOTP challenge").startsWith("wdn_ses_");
        assertThat(http.get("/auth/session", token).json().at("/session/amr").toString())
                .as("a device-bound key with user verification")
                .isEqualTo("[\"hwk\",\"mfa\"]");
        assertThat(http.get("/auth/passkeys", session)
                        .json()
                        .at("/passkeys/0/lastUsedAt")
                        .isNull())
                .isFalse();

        assertThat(http.delete("/auth/passkeys/" + added.at("/body/id").asText(), session)
                        .status())
                .isEqualTo(204);
        JsonNode gone = signInByApi();
        assertThat(gone.get("status").asInt())
                .as("a removed passkey signs no one in")
                .isEqualTo(400);
        assertThat(gone.at("/body/code").asText()).isEqualTo("webauthn_failed");
    }

    @Test
    void onTheLoginPageAPasskeySignsInAndTheClientRedeemsTheCode() throws Exception {
        Http http = warden.http();
        OAuthDriver driver = new OAuthDriver(http);
        String session = driver.signUp(unique("page"));
        assertThat(register(session, "Phone").get("status").asInt()).isEqualTo(201);
        browser.manage().deleteAllCookies();
        Http.Response reg = http.post(
                "/mcp/register",
                null,
                "{\"client_name\":\"IDE\",\"redirect_uris\":[\"" + redirectUri
                        + "\"],\"token_endpoint_auth_method\":\"none\"}");
        String clientId = reg.json().get("client_id").asText();
        OAuthDriver.Pkce pkce = OAuthDriver.Pkce.fresh();
        Map<String, String> request = OAuthDriver.request(clientId, pkce, "passkey-state");
        request.put("redirect_uri", redirectUri);
        request.put("scope", "agents:read");

        browser.get(origin + OAuthDriver.authorizePath(request));
        assertThat(browser.getCurrentUrl()).contains("/oauth/login");
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(15));
        wait.until(d -> d.findElement(By.id("passkey-sign-in")).isDisplayed());
        browser.findElement(By.id("passkey-sign-in")).click();
        wait.until(d -> d.getCurrentUrl().contains("/oauth/consent"));
        browser.findElement(By.id("allow")).click();
        String query = callbacks.poll(20, TimeUnit.SECONDS);
        assertThat(query).as("the browser reached the redirect URI").isNotNull();
        Map<String, String> answer = OAuthDriver.query(URI.create("http://x/?" + query));
        assertThat(answer).containsEntry("state", "passkey-state");
        Http.Response token = driver.token(Map.of(
                "grant_type",
                "authorization_code",
                "code",
                answer.get("code"),
                "redirect_uri",
                redirectUri,
                "client_id",
                clientId,
                "code_verifier",
                pkce.verifier()));
        assertThat(token.status()).as(token.body()).isEqualTo(200);
        JsonNode claims = claims(token.json().get("access_token").asText());
        assertThat(claims.get("amr").toString()).isEqualTo("[\"hwk\",\"mfa\"]");
    }

    @Test
    void theConsoleSignsInWithAPasskeyAlone() {
        Http http = warden.http();
        String session = new OAuthDriver(http).signUp(unique("console"));
        assertThat(register(session, "Security key").get("status").asInt()).isEqualTo(201);
        browser.manage().deleteAllCookies();
        browser.get(origin + "/console/agents");
        assertThat(browser.getCurrentUrl())
                .as("no session: the login page first")
                .contains("/oauth/login");
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(15));
        wait.until(d -> d.findElement(By.id("passkey-sign-in")).isDisplayed());
        browser.findElement(By.id("passkey-sign-in")).click();
        wait.until(d -> d.getCurrentUrl().endsWith("/console/agents"));
        assertThat(browser.findElement(By.cssSelector("main h1")).getText()).isEqualTo("Agents");
        String cookie = browser.manage().getCookieNamed("warden_session").getValue();
        assertThat(http.get("/auth/session", cookie).json().at("/session/amr").toString())
                .as("signed in with the passkey, no password")
                .isEqualTo("[\"hwk\",\"mfa\"]");
    }

    @Test
    void aPasskeyAnsweringForAnotherUserIsRefused() {
        Http http = warden.http();
        OAuthDriver driver = new OAuthDriver(http);
        String alice = driver.signUp(unique("alice"));
        String bob = driver.signUp(unique("bob"));
        String bobId = http.get("/auth/session", bob).json().at("/user/id").asText();
        assertThat(register(alice, "Alice's key").get("status").asInt()).isEqualTo(201);
        Credential alicesKey = authenticator.getCredentials().getFirst();

        // The same key, made to say it is Bob's: the assertion verifies against Alice's public key but claims Bob.
        browser.removeVirtualAuthenticator(authenticator);
        authenticator = browser.addVirtualAuthenticator(options());
        authenticator.addCredential(Credential.createResidentCredential(
                alicesKey.getId(),
                "localhost",
                alicesKey.getPrivateKey(),
                bobId.getBytes(StandardCharsets.UTF_8),
                alicesKey.getSignCount()));
        JsonNode refused = signInByApi();
        assertThat(refused.get("status").asInt()).as(refused.toString()).isEqualTo(400);
        assertThat(refused.at("/body/code").asText()).isEqualTo("webauthn_failed");
        assertThat(refused.at("/body/errors/0/field").asText()).isEqualTo("credential");
        assertThat(refused.at("/body/errors/0/message").asText()).contains("another user");
        assertThat(browser.manage().getCookieNamed("warden_session")).isNull();
    }

    @Test
    void aClonedAuthenticatorWithAStaleCounterIsRefused() {
        Http http = warden.http();
        String session = new OAuthDriver(http).signUp(unique("clone"));
        assertThat(register(session, "Key").get("status").asInt()).isEqualTo(201);
        assertThat(signInByApi().get("status").asInt()).isEqualTo(200);
        assertThat(signInByApi().get("status").asInt()).isEqualTo(200);
        Credential original = authenticator.getCredentials().getFirst();
        assertThat(original.getSignCount())
                .as("the authenticator counts signatures")
                .isGreaterThanOrEqualTo(2);

        // A copy of the key taken before those sign-ins: its counter is behind what Warden has seen.
        browser.removeVirtualAuthenticator(authenticator);
        authenticator = browser.addVirtualAuthenticator(options());
        authenticator.addCredential(Credential.createResidentCredential(
                original.getId(), "localhost", original.getPrivateKey(), original.getUserHandle(), 0));
        JsonNode refused = signInByApi();
        assertThat(refused.get("status").asInt()).as(refused.toString()).isEqualTo(400);
        assertThat(refused.at("/body/code").asText()).isEqualTo("webauthn_failed");
        assertThat(refused.at("/body/errors/0/message").asText()).contains("counter");
    }

    @Test
    void answersThatAreNoPasskeyAreRefusedWithAReasonAndTheSignInLimitHolds() {
        Http http = warden.http();
        // A fresh rate-limit window (the limiter reads the platform's clock), and another one after.
        warden.clock().advance(Duration.ofMinutes(2));
        OAuthDriver driver = new OAuthDriver(http);
        String session = driver.signUp(unique("errors"));
        String other = driver.signUp(unique("other"));

        Http.Response unknown =
                http.post("/auth/passkeys", session, "{\"ceremony\":\"wdn_wac_nope\",\"credential\":{}}");
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.json().get("code").asText()).isEqualTo("webauthn_failed");
        assertThat(unknown.json().at("/errors/0/field").asText()).isEqualTo("ceremony");
        Http.Response text = http.post("/auth/passkeys", session, "{\"ceremony\":\"x\",\"credential\":\"text\"}");
        assertThat(text.json().get("code").asText()).isEqualTo("validation_invalid");
        assertThat(text.json().at("/errors/0/field").asText()).isEqualTo("credential");
        String othersCeremony = http.post("/auth/passkeys/registration/options", other, "{}")
                .json()
                .get("ceremony")
                .asText();
        assertThat(http.post("/auth/passkeys", session, "{\"ceremony\":\"" + othersCeremony + "\",\"credential\":{}}")
                        .json()
                        .at("/errors/0/field")
                        .asText())
                .as("another user's registration ceremony")
                .isEqualTo("ceremony");

        String ceremony = http.post("/auth/passkeys/sign-in/options", null, "{}")
                .json()
                .get("ceremony")
                .asText();
        String garbage = "{\"ceremony\":\"" + ceremony + "\",\"credential\":{\"id\":\"AAAA\",\"type\":\"public-key\"}}";
        Http.Response refused = http.post("/auth/passkeys/sign-in", null, garbage);
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.json().get("code").asText()).isEqualTo("webauthn_failed");
        assertThat(refused.json().at("/errors/0/field").asText()).isEqualTo("credential");
        assertThat(http.post("/auth/passkeys/sign-in", null, garbage)
                        .json()
                        .at("/errors/0/message")
                        .asText())
                .as("the ceremony was spent by the first answer")
                .contains("ceremony is unknown, used or expired");
        assertThat(EventsTopic.await(
                                warden.infra().kafkaBootstrap(),
                                warden.topics().events(),
                                e -> e.type().equals("auth.failed") && e.text().contains("webauthn_failed"),
                                2)
                        .getFirst()
                        .text())
                .doesNotContain(ceremony);

        // passkey-sign-in: 20 a minute per IP for options and answers together; 3 were used above.
        for (int i = 0; i < 17; i++) {
            assertThat(http.post("/auth/passkeys/sign-in/options", null, "{}").status())
                    .isEqualTo(200);
        }
        assertThat(http.post("/auth/passkeys/sign-in/options", null, "{}").status())
                .isEqualTo(429);
        assertThat(http.post("/oauth/passkey", null, "").status())
                .as("the login page's form shares the limit")
                .isEqualTo(429);
        warden.clock().advance(Duration.ofMinutes(2));
    }

    private static VirtualAuthenticatorOptions options() {
        return new VirtualAuthenticatorOptions()
                .setProtocol(VirtualAuthenticatorOptions.Protocol.CTAP2)
                .setTransport(VirtualAuthenticatorOptions.Transport.INTERNAL)
                .setHasResidentKey(true)
                .setHasUserVerification(true)
                .setIsUserVerified(true)
                .setIsUserConsenting(true);
    }

    /** Registers a passkey for the session's user in the browser; {@code {"status", "body"}} of the last call. */
    private JsonNode register(String session, String name) {
        browser.get(origin + "/oauth/login");
        return script("""
                const headers = {"Authorization": "Bearer " + arguments[0], "Content-Type": "application/json"};
                const options = await (await fetch("/auth/passkeys/registration/options",
                    {method: "POST", headers, body: "{}"})).json();
                const credential = await navigator.credentials.create(
                    {publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options.publicKey)});
                const res = await fetch("/auth/passkeys", {method: "POST", headers,
                    body: JSON.stringify({ceremony: options.ceremony, credential: credential.toJSON(), name: arguments[1]})});
                return {status: res.status, body: await res.json()};
                """, session, name);
    }

    /** Signs in with whichever passkey the authenticator holds, on the REST API; {@code {"status", "body"}}. */
    private JsonNode signInByApi() {
        browser.get(origin + "/oauth/login");
        return script("""
                const headers = {"Content-Type": "application/json"};
                const options = await (await fetch("/auth/passkeys/sign-in/options",
                    {method: "POST", headers, body: "{}"})).json();
                const credential = await navigator.credentials.get(
                    {publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options.publicKey)});
                const res = await fetch("/auth/passkeys/sign-in", {method: "POST", headers,
                    body: JSON.stringify({ceremony: options.ceremony, credential: credential.toJSON()})});
                return {status: res.status, body: await res.json()};
                """);
    }

    /** Runs {@code body} (an async function's body, given {@code args}) in the page; its result as JSON. */
    private static JsonNode script(String body, Object... args) {
        Object result = browser.executeAsyncScript(
                "const done = arguments[arguments.length - 1];"
                        + "(async function() {" + body + "}).apply(null, Array.from(arguments).slice(0, -1))"
                        + ".then(r => done(JSON.stringify(r)), e => done(JSON.stringify({error: String(e)})));",
                args);
        try {
            return Json.mapper().readTree(String.valueOf(result));
        } catch (java.io.IOException e) {
            throw new AssertionError("not JSON: " + result, e);
        }
    }

    private static JsonNode claims(String jwt) {
        try {
            return Json.mapper()
                    .readTree(Base64.getUrlDecoder()
                            .decode(List.of(jwt.split("\\.")).get(1)));
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    private static String unique(String prefix) {
        return prefix + "_" + UUID.randomUUID().toString().substring(0, 8);
    }
}
