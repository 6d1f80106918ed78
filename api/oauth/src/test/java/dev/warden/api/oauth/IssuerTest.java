package dev.warden.api.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The loopback spellings of a default issuer, and none for a configured one. */
class IssuerTest {
    @Test
    void aLoopbackIssuerAnswersToItsThreeSpellingsOnItsOwnPortOnly() {
        Issuer issuer = Issuer.loopback();
        issuer.resolve("http://localhost:8080");
        assertThat(issuer.spelledAs("127.0.0.1:8080")).contains("http://127.0.0.1:8080");
        assertThat(issuer.spelledAs("[::1]:8080")).contains("http://[::1]:8080");
        assertThat(issuer.spelledAs("LOCALHOST:8080")).contains("http://localhost:8080");
        assertThat(issuer.spelledAs("127.0.0.1:9090")).isEmpty();
        assertThat(issuer.spelledAs("evil.example:8080")).isEmpty();
        assertThat(issuer.spelledAs("127.0.0.1")).isEmpty();
        assertThat(issuer.spelledAs(null)).isEmpty();
    }

    @Test
    void aRequestSeesItsSpellingWhileTokensAndResourcesStayCanonical() {
        Issuer issuer = Issuer.loopback();
        issuer.resolve("http://localhost:8080");
        AtomicReference<String> seen = new AtomicReference<>();
        issuer.serve(issuer.spelledAs("127.0.0.1:8080"), () -> {
            seen.set(issuer.value() + " " + issuer.mcpResource() + " " + issuer.origin() + " " + issuer.canonical()
                    + " " + issuer.outward("http://localhost:8080/mcp"));
        });
        assertThat(seen.get())
                .isEqualTo("http://127.0.0.1:8080 http://127.0.0.1:8080/mcp http://127.0.0.1:8080 "
                        + "http://localhost:8080 http://127.0.0.1:8080/mcp");
        assertThat(issuer.value()).as("after the request").isEqualTo("http://localhost:8080");
        assertThat(issuer.canonicalize("http://[::1]:8080/mcp")).isEqualTo("http://localhost:8080/mcp");
        assertThat(issuer.canonicalize("http://127.0.0.1:8080")).isEqualTo("http://localhost:8080");
        assertThat(issuer.canonicalize("http://127.0.0.1:8080.evil/mcp")).isEqualTo("http://127.0.0.1:8080.evil/mcp");
        assertThat(issuer.canonicalize("http://127.0.0.1:9999/mcp")).isEqualTo("http://127.0.0.1:9999/mcp");
    }

    @Test
    void aConfiguredIssuerHasNoOtherSpelling() {
        Issuer issuer = Issuer.of("http://localhost:8080");
        assertThat(issuer.spelledAs("127.0.0.1:8080")).isEmpty();
        assertThat(issuer.canonicalize("http://127.0.0.1:8080/mcp")).isEqualTo("http://127.0.0.1:8080/mcp");
        issuer.serve(Optional.empty(), () -> assertThat(issuer.value()).isEqualTo("http://localhost:8080"));
    }
}
