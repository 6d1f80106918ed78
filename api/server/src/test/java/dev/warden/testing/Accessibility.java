package dev.warden.testing;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.pipeline.contract.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;

/**
 * axe-core (npm, pinned in {@code deploy/a11y}, installed by {@code bin/setup.sh}) run in the page a browser test has
 * open: the WCAG 2.x A and AA rules and best practices. The script is injected by the driver, which the page's
 * Content-Security-Policy does not govern.
 */
public final class Accessibility {
    private static final String AXE = load();

    private Accessibility() {}

    /** The violations of serious or critical impact on the open page, as {@code "rule: nodes (help)"} lines. */
    public static List<String> seriousViolations(WebDriver browser) {
        JavascriptExecutor js = (JavascriptExecutor) browser;
        js.executeScript(AXE);
        Object result = js.executeAsyncScript("const done = arguments[arguments.length - 1];"
                + "axe.run(document, {resultTypes: ['violations']})"
                + ".then(r => done(JSON.stringify(r.violations)), e => done(JSON.stringify({error: String(e)})));");
        JsonNode violations;
        try {
            violations = Json.mapper().readTree(String.valueOf(result));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (violations.has("error")) {
            throw new IllegalStateException(
                    "axe-core failed: " + violations.get("error").asText());
        }
        List<String> serious = new ArrayList<>();
        for (JsonNode v : violations) {
            String impact = v.path("impact").asText();
            if (impact.equals("serious") || impact.equals("critical")) {
                List<String> targets = new ArrayList<>();
                v.path("nodes").forEach(n -> targets.add(n.path("target").toString()));
                serious.add(v.get("id").asText() + " (" + impact + "): "
                        + v.path("help").asText() + " at " + targets);
            }
        }
        return serious;
    }

    private static String load() {
        try {
            return Files.readString(RepositoryFiles.file("deploy/a11y/node_modules/axe-core/axe.min.js"));
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("axe-core is not installed: run bin/setup.sh (npm ci in deploy/a11y)", e);
        }
    }
}
