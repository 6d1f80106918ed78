package dev.warden.api.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.api.users.UsersConfig;
import dev.warden.api.users.totp.Base32;
import dev.warden.api.users.totp.Totp;
import dev.warden.testing.Accessibility;
import dev.warden.testing.Chromium;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The login and consent pages in a real browser: headless Chromium (Debian's {@code chromium} and
 * {@code chromium-driver}, installed by {@code bin/setup.sh}) driven by Selenium. A user signs in, sees who asks
 * for what, allows it, and the browser lands on the client's redirect URI (a local receiver) with a code that
 * redeems; a wrong password shows the form again; a page that frames the login page gets nothing; a user connects a
 * device (RFC 8628) by signing in and confirming the code it shows.
 */
class OAuthPagesBrowserIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(
            b -> b.users(UsersConfig.builder().argon2(1024, 1, 1).build())
                    .rateLimit(RateLimitConfig.builder()
                            .endpoint(AuthEndpoint.REGISTRATION, 100, 60)
                            .build()));

    static WebDriver browser;
    static HttpServer receiver;
    static final BlockingQueue<String> callbacks = new ArrayBlockingQueue<>(10);
    static String redirectUri;

    @BeforeAll
    static void start() throws Exception {
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/callback", exchange -> {
            callbacks.add(exchange.getRequestURI().getRawQuery());
            byte[] body =
                    "<html><body><p id=\"done\">back at the client</p></body></html>".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "text/html");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        receiver.createContext("/framer", exchange -> {
            byte[] body = ("<html><body><iframe id=\"f\" src=\""
                            + warden.http().baseUri().resolve("/oauth/login") + "\"></iframe></body></html>")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "text/html");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        receiver.start();
        redirectUri = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/callback";

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

    @Test
    void aUserSignsInConsentsAndTheClientGetsACodeThatRedeems() throws Exception {
        Http http = warden.http();
        OAuthDriver driver = new OAuthDriver(http);
        driver.signUp("browser_user");
        Http.Response reg = http.post(
                "/mcp/register",
                null,
                "{\"client_name\":\"Desktop <Assistant>\"," + "\"redirect_uris\":[\"" + redirectUri
                        + "\"],\"token_endpoint_auth_method\":\"none\"}");
        assertThat(reg.status()).as(reg.body()).isEqualTo(201);
        String clientId = reg.json().get("client_id").asText();
        OAuthDriver.Pkce pkce = OAuthDriver.Pkce.fresh();
        Map<String, String> request = OAuthDriver.request(clientId, pkce, "browser-state");
        request.put("redirect_uri", redirectUri);
        request.put("scope", "agents:read audit:read");

        signedOut(http);
        browser.get(http.baseUri().resolve(OAuthDriver.authorizePath(request)).toString());
        assertThat(browser.getCurrentUrl()).contains("/oauth/login");
        assertThat(Accessibility.seriousViolations(browser))
                .as("the login page")
                .isEmpty();
        browser.findElement(By.id("username")).sendKeys("browser_user");
        browser.findElement(By.id("password")).sendKeys("not the password");
        browser.findElement(By.id("sign-in")).click();
        // The form posts and the page comes back with the error: wait for it rather than race the navigation.
        assertThat(new WebDriverWait(browser, Duration.ofSeconds(10))
                        .until(d -> d.findElements(By.id("error")).stream()
                                .findFirst()
                                .orElse(null))
                        .getText())
                .isEqualTo("Invalid username or password.");

        browser.findElement(By.id("password")).sendKeys("a long enough password");
        browser.findElement(By.id("sign-in")).click();
        new WebDriverWait(browser, Duration.ofSeconds(10))
                .until(d -> d.getCurrentUrl().contains("/oauth/consent"));
        assertThat(Accessibility.seriousViolations(browser))
                .as("the consent page")
                .isEmpty();
        // the client's name is shown as text, never as markup
        assertThat(browser.findElement(By.id("client-name")).getText()).isEqualTo("Desktop <Assistant>");
        assertThat(browser.findElement(By.id("redirect-host")).getText())
                .isEqualTo("127.0.0.1:" + receiver.getAddress().getPort());
        assertThat(browser.findElement(By.id("scopes")).getText())
                .contains("agents:read")
                .contains("audit:read");
        assertThat(browser.findElement(By.id("username")).getText()).isEqualTo("browser_user");

        browser.findElement(By.id("allow")).click();
        String query = callbacks.poll(20, TimeUnit.SECONDS);
        assertThat(query).as("the browser reached the redirect URI").isNotNull();
        assertThat(browser.findElement(By.id("done")).getText()).isEqualTo("back at the client");
        Map<String, String> answer = OAuthDriver.query(URI.create("http://x/?" + query));
        assertThat(answer)
                .containsEntry("state", "browser-state")
                .containsEntry("iss", http.baseUri().toString().replaceAll("/$", ""));
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
        assertThat(http.get("/agents", token.json().get("access_token").asText())
                        .status())
                .isEqualTo(200);
    }

    @Test
    void aUserWithTotpGivesTheCodeOnTheLoginPageAndTheClientGetsACode() throws Exception {
        Http http = warden.http();
        OAuthDriver driver = new OAuthDriver(http);
        String session = driver.signUp("totp_browser_user");
        byte[] secret = Base32.decode(
                http.post("/auth/totp/enrol", session).json().get("secret").asText());
        assertThat(http.post("/auth/totp/confirm", session, "{\"code\":\"" + totpCode(secret) + "\"}")
                        .status())
                .isEqualTo(200);
        Http.Response reg = http.post(
                "/mcp/register",
                null,
                "{\"client_name\":\"IDE\",\"redirect_uris\":[\"" + redirectUri
                        + "\"],\"token_endpoint_auth_method\":\"none\"}");
        String clientId = reg.json().get("client_id").asText();
        OAuthDriver.Pkce pkce = OAuthDriver.Pkce.fresh();
        Map<String, String> request = OAuthDriver.request(clientId, pkce, "totp-state");
        request.put("redirect_uri", redirectUri);
        request.put("scope", "agents:read");

        signedOut(http);
        browser.get(http.baseUri().resolve(OAuthDriver.authorizePath(request)).toString());
        browser.findElement(By.id("username")).sendKeys("totp_browser_user");
        browser.findElement(By.id("password")).sendKeys("a long enough password");
        browser.findElement(By.id("sign-in")).click();
        new WebDriverWait(browser, Duration.ofSeconds(10))
                .until(d -> !d.findElements(By.id("totp")).isEmpty());
        assertThat(browser.manage().getCookieNamed("warden_session"))
                .as("no session before the second step")
                .isNull();

        assertThat(Accessibility.seriousViolations(browser))
                .as("the second step")
                .isEmpty();
        browser.findElement(By.id("code")).sendKeys("000000".equals(totpCode(secret)) ? "111111" : "000000");
        browser.findElement(By.id("verify")).click();
        assertThat(new WebDriverWait(browser, Duration.ofSeconds(10))
                        .until(d -> d.findElements(By.id("error")).stream()
                                .findFirst()
                                .orElse(null))
                        .getText())
                .startsWith("That code did not work.");

        // The confirmation used the current step's code: the next step's signs in.
        warden.clock().advance(Duration.ofSeconds(30));
        browser.findElement(By.id("code")).sendKeys(totpCode(secret));
        browser.findElement(By.id("verify")).click();
        new WebDriverWait(browser, Duration.ofSeconds(10))
                .until(d -> d.getCurrentUrl().contains("/oauth/consent"));
        browser.findElement(By.id("allow")).click();
        String query = callbacks.poll(20, TimeUnit.SECONDS);
        assertThat(query).as("the browser reached the redirect URI").isNotNull();
        Map<String, String> answer = OAuthDriver.query(URI.create("http://x/?" + query));
        assertThat(answer).containsEntry("state", "totp-state");
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
    }

    static String totpCode(byte[] secret) {
        return Totp.code(secret, Totp.step(warden.clock().instant()));
    }

    @Test
    void aUserConnectsADeviceWithTheCodeItShows() throws Exception {
        Http http = warden.http();
        OAuthDriver driver = new OAuthDriver(http);
        driver.signUp("device_user");
        Http.Response reg = http.post(
                "/mcp/register",
                null,
                "{\"client_name\":\"Headless agent\",\"grant_types\":"
                        + "[\"urn:ietf:params:oauth:grant-type:device_code\"],\"token_endpoint_auth_method\":\"none\"}");
        assertThat(reg.status()).as(reg.body()).isEqualTo(201);
        assertThat(reg.json().get("response_types").size())
                .as("no code grant, no response type")
                .isZero();
        assertThat(reg.json().get("redirect_uris").size()).isZero();
        String clientId = reg.json().get("client_id").asText();
        Http.Response start =
                driver.postForm("/auth/device/code", Map.of("client_id", clientId, "scope", "agents:read"), null);
        assertThat(start.status()).as(start.body()).isEqualTo(200);
        String userCode = start.json().get("user_code").asText();

        // A fresh browser: no session yet, so the login page comes first and leads back to the code.
        signedOut(http);
        browser.get(start.json().get("verification_uri_complete").asText());
        assertThat(browser.getCurrentUrl()).contains("/oauth/login");
        browser.findElement(By.id("username")).sendKeys("device_user");
        browser.findElement(By.id("password")).sendKeys("a long enough password");
        browser.findElement(By.id("sign-in")).click();
        new WebDriverWait(browser, Duration.ofSeconds(10))
                .until(d -> d.getCurrentUrl().contains("/auth/device"));
        assertThat(browser.findElement(By.id("user-code")).getAttribute("value"))
                .isEqualTo(userCode);
        browser.findElement(By.id("continue")).click();
        new WebDriverWait(browser, Duration.ofSeconds(10))
                .until(d -> !d.findElements(By.id("allow")).isEmpty());
        assertThat(browser.findElement(By.id("client-name")).getText()).isEqualTo("Headless agent");
        assertThat(browser.findElement(By.id("user-code")).getText()).isEqualTo(userCode);
        assertThat(browser.findElement(By.id("scopes")).getText()).contains("agents:read");
        browser.findElement(By.id("allow")).click();
        new WebDriverWait(browser, Duration.ofSeconds(10))
                .until(d -> !d.findElements(By.id("result")).isEmpty());
        assertThat(browser.findElement(By.id("result")).getText()).isEqualTo("Device connected");

        Http.Response token = driver.token(Map.of(
                "grant_type",
                "urn:ietf:params:oauth:grant-type:device_code",
                "client_id",
                clientId,
                "device_code",
                start.json().get("device_code").asText()));
        assertThat(token.status()).as(token.body()).isEqualTo(200);
        assertThat(http.get("/agents", token.json().get("access_token").asText())
                        .status())
                .isEqualTo(200);
    }

    /** Forgets this browser's cookies for Warden (the tests share one browser). */
    static void signedOut(Http http) {
        browser.get(http.baseUri().resolve("/oauth/login").toString());
        browser.manage().deleteAllCookies();
    }

    @Test
    void theLoginPageCannotBeFramed() {
        browser.get("http://127.0.0.1:" + receiver.getAddress().getPort() + "/framer");
        browser.switchTo().frame("f");
        try {
            assertThat(browser.findElements(By.id("login")))
                    .as("the framed login form")
                    .isEmpty();
        } finally {
            browser.switchTo().defaultContent();
        }
        browser.get(warden.http().baseUri().resolve("/oauth/login").toString());
        assertThat(browser.findElements(By.id("login")))
                .as("the login form, not framed")
                .hasSize(1);
    }
}
