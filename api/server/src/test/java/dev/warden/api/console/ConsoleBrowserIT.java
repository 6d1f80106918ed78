package dev.warden.api.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.api.oauth.OAuthDriver;
import dev.warden.api.users.UsersConfig;
import dev.warden.testing.Accessibility;
import dev.warden.testing.Chromium;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console in real headless Chromium: a user signs in through the login page and lands back in the console,
 * watches a decision appear in the live feed, sees their agent (its name, script and all, shown as text), suspends
 * it after confirming, its next decision is denied, the audit search finds that denial, and on the agent's page
 * they rotate its token (shown once; the old one stops working) and revoke it. axe-core finds no serious or critical violation on any of
 * those pages. Each page is saved as a screenshot under {@code target/screenshots}.
 */
class ConsoleBrowserIT {
    static final String PASSWORD = "a long enough password";
    static final String HOSTILE_NAME = "<script>alert(1)</script><img src=x onerror=alert(2)>";

    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(
            b -> b.users(UsersConfig.builder().argon2(1024, 1, 1).build()));

    static ChromeDriver browser;

    @BeforeAll
    static void start() {
        browser = Chromium.start();
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    void aUserSignsInWatchesADecisionLiveAndSuspendsTheirAgent() throws Exception {
        Http http = warden.http();
        String name = "console_" + UUID.randomUUID().toString().substring(0, 8);
        String session = new OAuthDriver(http).signUp(name);
        String userId = http.get("/auth/session", session).json().at("/user/id").asText();
        Http.Response created = http.post(
                "/agents",
                session,
                dev.warden.testing.TestAgents.anAgent(userId).name(HOSTILE_NAME).json());
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        JsonNode agent = created.json();
        String agentId = agent.get("id").asText();
        String origin = http.baseUri().toString().replaceAll("/$", "");

        browser.get(origin + "/console/feed");
        assertThat(browser.getCurrentUrl())
                .as("no session: the login page first")
                .contains("/oauth/login");
        browser.findElement(By.id("username")).sendKeys(name);
        browser.findElement(By.id("password")).sendKeys(PASSWORD);
        browser.findElement(By.id("sign-in")).click();
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(15));
        wait.until(d -> d.getCurrentUrl().endsWith("/console/feed"));
        wait.until(d -> "live".equals(d.findElement(By.id("status")).getDomAttribute("data-state")));

        long asked = System.nanoTime();
        JsonNode decision = http.post(
                        "/authorize",
                        session,
                        "{\"agentId\":\"" + agentId + "\",\"action\":\"read\",\"resource\":\"mcp:github:issues:1\"}")
                .json();
        assertThat(decision.get("allowed").asBoolean()).isTrue();
        wait.until(d ->
                !d.findElements(By.cssSelector("#rows tr[data-type='audit']")).isEmpty());
        long shownMs = (System.nanoTime() - asked) / 1_000_000;
        assertThat(browser.findElement(By.cssSelector("#rows tr[data-type='audit']"))
                        .getText())
                .contains(agentId)
                .contains("allowed");
        assertThat(shownMs).as("the decision is in the feed within a second").isLessThan(1_000);
        screenshot("console-feed");
        assertThat(Accessibility.seriousViolations(browser)).as("the live feed").isEmpty();

        browser.findElement(By.id("nav-agents")).click();
        wait.until(d -> d.getCurrentUrl().endsWith("/console/agents"));
        assertThat(browser.findElement(By.cssSelector("tr[data-agent='" + agentId + "'] .name"))
                        .getText())
                .as("a name with markup is shown as text")
                .isEqualTo(HOSTILE_NAME);
        screenshot("console-agents");
        assertThat(Accessibility.seriousViolations(browser))
                .as("the agents page")
                .isEmpty();
        browser.findElement(By.id("suspend-" + agentId)).click();
        wait.until(d -> !d.findElements(By.id("confirm-action")).isEmpty());
        assertThat(browser.findElement(By.id("agent-name")).getText()).isEqualTo(HOSTILE_NAME);
        assertThat(Accessibility.seriousViolations(browser))
                .as("the confirmation")
                .isEmpty();
        browser.findElement(By.id("confirm-action")).click();
        wait.until(d -> d.getCurrentUrl().endsWith("/console/agents/" + agentId));
        assertThat(browser.findElement(By.id("agent-status")).getText()).isEqualTo("suspended");
        assertThat(browser.findElement(By.id("agent-name")).getText()).isEqualTo(HOSTILE_NAME);
        JsonNode denied = http.post(
                        "/authorize",
                        session,
                        "{\"agentId\":\"" + agentId + "\",\"action\":\"read\",\"resource\":\"mcp:github:issues:1\"}")
                .json();
        assertThat(denied.get("allowed").asBoolean()).as(denied.toString()).isFalse();

        // The audit search finds the denial by agent and result (the audit log is written a moment later).
        browser.findElement(By.id("nav-audit")).click();
        wait.until(d -> d.getCurrentUrl().endsWith("/console/audit"));
        browser.findElement(By.id("agentId")).sendKeys(agentId);
        new Select(browser.findElement(By.id("result"))).selectByValue("denied");
        browser.findElement(By.id("search")).click();
        wait.until(d -> {
            if (d.findElements(By.cssSelector("#entries tr[data-entry]")).isEmpty()) {
                d.navigate().refresh();
                return false;
            }
            return true;
        });
        assertThat(browser.findElements(By.cssSelector("#entries tr[data-entry]")))
                .hasSize(1)
                .first()
                .satisfies(row -> assertThat(row.getText()).contains("denied").contains("mcp:github:issues:1"));
        assertThat(browser.findElement(By.id("export-csv")).getDomAttribute("href"))
                .contains("agentId=" + agentId)
                .contains("result=denied");
        screenshot("console-audit");
        assertThat(Accessibility.seriousViolations(browser))
                .as("the audit search")
                .isEmpty();

        // The agent's page: its permissions and decisions; resumed, its token rotated (the new one shown once; an
        // inactive agent's token would not authenticate at all), and revoked, which is final.
        browser.get(origin + "/console/agents/" + agentId);
        assertThat(browser.findElement(By.id("permissions")).getText())
                .contains("mcp:github:*")
                .contains("read");
        wait.until(d -> {
            if (d.findElements(By.cssSelector("#decisions tr[data-entry]")).size() < 2) {
                d.navigate().refresh();
                return false;
            }
            return true;
        });
        assertThat(Accessibility.seriousViolations(browser))
                .as("the agent's page")
                .isEmpty();
        screenshot("console-agent");
        browser.findElement(By.id("resume")).click();
        wait.until(d -> !d.findElements(By.id("confirm-action")).isEmpty());
        browser.findElement(By.id("confirm-action")).click();
        wait.until(d -> "active".equals(d.findElement(By.id("agent-status")).getText()));
        String oldToken = agent.get("token").asText();
        browser.findElement(By.id("rotate")).click();
        wait.until(d -> !d.findElements(By.id("confirm-action")).isEmpty());
        browser.findElement(By.id("confirm-action")).click();
        wait.until(d -> !d.findElements(By.id("token")).isEmpty());
        String newToken = browser.findElement(By.id("token")).getDomProperty("value");
        assertThat(newToken).startsWith("wdn_agt_").isNotEqualTo(oldToken);
        assertThat(Accessibility.seriousViolations(browser)).as("the new token").isEmpty();
        String ask = "{\"agentId\":\"" + agentId + "\",\"action\":\"read\",\"resource\":\"mcp:github:issues:2\"}";
        assertThat(http.post("/authorize", oldToken, ask).status())
                .as("the old token")
                .isEqualTo(401);
        assertThat(http.post("/authorize", newToken, ask).status())
                .as("the new token")
                .isEqualTo(200);
        browser.findElement(By.id("done")).click();
        wait.until(d -> !d.findElements(By.id("revoke")).isEmpty());
        browser.findElement(By.id("revoke")).click();
        wait.until(d -> !d.findElements(By.id("confirm-action")).isEmpty());
        browser.findElement(By.id("confirm-action")).click();
        wait.until(d -> "revoked".equals(d.findElement(By.id("agent-status")).getText()));
        assertThat(browser.findElements(By.id("rotate")))
                .as("nothing more to do with it")
                .isEmpty();
        assertThat(http.post("/authorize", newToken, ask).status()).isEqualTo(401);

        browser.findElement(By.id("sign-out")).click();
        wait.until(d -> d.getCurrentUrl().contains("/oauth/login"));
        browser.get(origin + "/console/feed");
        assertThat(browser.getCurrentUrl())
                .as("signed out: the console asks to sign in again")
                .contains("/oauth/login");
    }

    @Test
    void thePagesAllowNoInlineScriptAndAFormFromElsewhereIsRefused() throws Exception {
        Http http = warden.http();
        String name = "console_" + UUID.randomUUID().toString().substring(0, 8);
        String session = new OAuthDriver(http).signUp(name);
        Http.Response page = http.send(http.builder("/console/agents", null)
                .header("Cookie", "warden_session=" + session)
                .GET());
        assertThat(page.status()).isEqualTo(200);
        String csp = page.header("Content-Security-Policy").orElseThrow();
        assertThat(csp)
                .contains("script-src 'self'")
                .contains("style-src 'self'")
                .doesNotContain("unsafe");
        assertThat(http.get("/console/agents", null).status())
                .as("no session: off to sign in")
                .isEqualTo(302);
        Http.Response forged = http.send(http.builder("/console/agents/agt_x/suspend", null)
                .header("Cookie", "warden_session=" + session)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("csrf=guess")));
        assertThat(forged.status()).as("no CSRF cookie to match").isEqualTo(403);

        // Another user's agent is not there to confirm or act on: the same access policy as the REST API.
        String ownerId =
                http.get("/auth/session", session).json().at("/user/id").asText();
        String agentId = http.post(
                        "/agents",
                        session,
                        dev.warden.testing.TestAgents.anAgent(ownerId).json())
                .json()
                .get("id")
                .asText();
        String stranger = new OAuthDriver(http)
                .signUp("console_" + UUID.randomUUID().toString().substring(0, 8));
        Http.Response theirs = http.send(http.builder("/console/agents/" + agentId + "/suspend", null)
                .header("Cookie", "warden_session=" + stranger)
                .GET());
        assertThat(theirs.status()).isEqualTo(404);
        assertThat(http.send(http.builder("/console/agents", null)
                                .header("Cookie", "warden_session=" + stranger)
                                .GET())
                        .body())
                .doesNotContain(agentId);
    }

    private static void screenshot(String name) throws Exception {
        Path dir = Path.of("target", "screenshots");
        Files.createDirectories(dir);
        Files.write(dir.resolve(name + ".png"), browser.getScreenshotAs(OutputType.BYTES));
    }
}
