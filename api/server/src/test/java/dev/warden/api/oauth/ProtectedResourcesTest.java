package dev.warden.api.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Who may introspect which token (security review, finding 6; docs/security.md, "Introspection"). */
class ProtectedResourcesTest {
    static final String TOOLS = "https://tools.example.com/mcp";
    final ProtectedResources resources = new ProtectedResources(
            Issuer.of("https://warden.example"),
            List.of(new OAuthConfig.Resource(TOOLS, List.of("tools:run"), List.of("tools-server"))));

    @Test
    void aClientLearnsAboutItsOwnTokensAndAConfiguredResourceServerAboutThatResourcesTokens() {
        assertThat(resources.mayIntrospect("app", false, "app", "https://warden.example"))
                .isTrue();
        assertThat(resources.mayIntrospect("other", true, "app", "https://warden.example"))
                .isFalse();
        assertThat(resources.mayIntrospect("tools-server", true, "app", TOOLS)).isTrue();
        // Its own resource only, and only as a confidential client (a public client proves just its id).
        assertThat(resources.mayIntrospect("tools-server", true, "app", "https://warden.example"))
                .isFalse();
        assertThat(resources.mayIntrospect("tools-server", false, "app", TOOLS)).isFalse();
    }
}
