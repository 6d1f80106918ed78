package dev.warden.testing;

import java.io.File;
import java.time.Duration;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Headless Chromium driven by Selenium: Debian's {@code chromium} and {@code chromium-driver}, installed by
 * {@code bin/setup.sh}. A test that needs a browser fails, naming the missing program, when they are not there.
 */
public final class Chromium {
    private Chromium() {}

    /**
     * A fresh headless browser that has opened a first page; the caller quits it. A browser that dies while starting
     * (seen once on a loaded machine: "the browser has closed the connection") is replaced once.
     */
    public static ChromeDriver start() {
        ChromeDriver browser = launch();
        try {
            browser.get("about:blank");
            return browser;
        } catch (WebDriverException e) {
            browser.quit();
            ChromeDriver again = launch();
            again.get("about:blank");
            return again;
        }
    }

    private static ChromeDriver launch() {
        System.setProperty("SE_AVOID_STATS", "true");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(executable("chromium"));
        options.addArguments(
                "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1200,900");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(executable("chromedriver")))
                .usingAnyFreePort()
                .build();
        ChromeDriver browser = new ChromeDriver(service, options);
        browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
        browser.manage().timeouts().scriptTimeout(Duration.ofSeconds(30));
        return browser;
    }

    /** Where Debian installs it; fails (run bin/setup.sh) when it is missing. */
    private static String executable(String name) {
        for (String dir : new String[] {"/usr/bin", "/usr/lib/chromium", "/usr/local/bin"}) {
            File f = new File(dir, name);
            if (f.canExecute()) {
                return f.getPath();
            }
        }
        throw new IllegalStateException(
                name + " is not installed: run bin/setup.sh (Debian's chromium and chromium-driver)");
    }
}
