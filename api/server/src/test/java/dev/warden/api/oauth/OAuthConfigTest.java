package dev.warden.api.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.api.config.ConfigLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code warden.oauth} read from YAML lists and from environment variables alike. */
class OAuthConfigTest {
    @Test
    void listsMayBeYamlListsOrCommaSeparatedStrings(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("warden.yaml");
        Files.writeString(file, """
                warden:
                  oauth:
                    registration-tokens: [first-token, second-token]
                    resources:
                      - uri: "https://tools.example.com/mcp"
                        scopes: [tools:run, tools:read]
                """);
        OAuthConfig yaml =
                OAuthConfig.from(ConfigLoader.load(Optional.of(file), Map.of()).get("warden.oauth"));
        assertThat(yaml.registrationTokens()).containsExactly("first-token", "second-token");
        assertThat(yaml.resources())
                .containsExactly(
                        new OAuthConfig.Resource("https://tools.example.com/mcp", List.of("tools:run", "tools:read")));

        OAuthConfig env =
                OAuthConfig.from(ConfigLoader.load(Optional.empty(), Map.of("WARDEN_OAUTH_REGISTRATION__TOKENS", "a,b"))
                        .get("warden.oauth"));
        assertThat(env.registrationTokens()).containsExactly("a", "b");
        assertThat(env.toString()).doesNotContain("a,b").contains("2 configured");
    }
}
