package dev.warden.api.oauth.clients;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.api.errors.OAuthException;
import dev.warden.api.oauth.authorize.Pkce;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Redirect URI rules and matching, Client ID Metadata Document acceptance, PKCE. No I/O. */
class ClientRulesTest {
    private static final String DOC = "https://client.example/oauth/metadata.json";

    @Test
    void registeredRedirectsAreHttpsLoopbackHttpOrPrivateUseSchemes() {
        assertThat(RedirectUris.problem("https://app.example/cb")).isEmpty();
        assertThat(RedirectUris.problem("http://127.0.0.1/cb")).isEmpty();
        assertThat(RedirectUris.problem("http://[::1]:8080/cb")).isEmpty();
        assertThat(RedirectUris.problem("com.example.app:/cb")).isEmpty();
        assertThat(RedirectUris.problem("http://app.example/cb")).isPresent();
        assertThat(RedirectUris.problem("https://app.example/cb#x")).isPresent();
        assertThat(RedirectUris.problem("https://user@app.example/cb")).isPresent();
        assertThat(RedirectUris.problem("javascript:alert(1)")).isPresent();
        assertThat(RedirectUris.problem("data:text/html,x")).isPresent();
        assertThat(RedirectUris.problem("/relative")).isPresent();
    }

    @Test
    void matchingIsExactExceptTheLoopbackPort() {
        List<String> registered = List.of("http://127.0.0.1/callback", "https://app.example/cb");
        assertThat(RedirectUris.matches(registered, "http://127.0.0.1:51234/callback"))
                .isTrue();
        assertThat(RedirectUris.matches(registered, "http://127.0.0.1:51234/other"))
                .isFalse();
        assertThat(RedirectUris.matches(registered, "https://app.example/cb")).isTrue();
        assertThat(RedirectUris.matches(registered, "https://app.example:444/cb"))
                .isFalse();
        assertThat(RedirectUris.matches(registered, "https://app.example/cb/")).isFalse();
        assertThat(RedirectUris.matches(registered, "http://localhost:5/callback"))
                .isFalse();
    }

    @Test
    void aMetadataDocumentMustNameItselfAndBePublic() {
        ClientMetadataDocuments docs = new ClientMetadataDocuments(
                null, List.of(443), s -> true, Set.of(GrantTypes.AUTHORIZATION_CODE), Instant::now);
        OAuthClient client = docs.parse(
                DOC,
                ("{\"client_id\":\"" + DOC + "\",\"client_name\":\"Doc client\","
                                + "\"redirect_uris\":[\"http://127.0.0.1/cb\"]}")
                        .getBytes(StandardCharsets.UTF_8),
                Instant.EPOCH);
        assertThat(client.clientId()).isEqualTo(DOC);
        assertThat(client.isPublic()).isTrue();
        assertThat(client.redirectUris()).containsExactly("http://127.0.0.1/cb");
        assertThatThrownBy(() -> docs.parse(
                        DOC,
                        ("{\"client_id\":\"https://other.example/m.json\","
                                        + "\"redirect_uris\":[\"http://127.0.0.1/cb\"]}")
                                .getBytes(StandardCharsets.UTF_8),
                        Instant.EPOCH))
                .isInstanceOf(OAuthException.class)
                .hasMessageContaining("must equal its URL");
        assertThatThrownBy(() -> docs.parse(
                        DOC,
                        ("{\"client_id\":\"" + DOC + "\",\"token_endpoint_auth_method\":"
                                        + "\"client_secret_basic\",\"redirect_uris\":[\"http://127.0.0.1/cb\"]}")
                                .getBytes(StandardCharsets.UTF_8),
                        Instant.EPOCH))
                .isInstanceOf(OAuthException.class)
                .hasMessageContaining("public");
        assertThatThrownBy(() -> docs.parse(DOC, "[1]".getBytes(StandardCharsets.UTF_8), Instant.EPOCH))
                .isInstanceOf(OAuthException.class);
        assertThat(ClientMetadataDocuments.isDocumentUrl(DOC)).isTrue();
        assertThat(ClientMetadataDocuments.isDocumentUrl("https://client.example"))
                .isFalse();
        assertThat(ClientMetadataDocuments.isDocumentUrl("http://client.example/m.json"))
                .isFalse();
        assertThat(ClientMetadataDocuments.isDocumentUrl("0f1c-uuid")).isFalse();
    }

    @Test
    void pkceIsS256Only() {
        // RFC 7636 appendix B
        assertThat(Pkce.matches(
                        "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"))
                .isTrue();
        assertThat(Pkce.matches(
                        "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"))
                .isFalse();
        assertThat(Pkce.verifierFormatOk("short")).isFalse();
        assertThat(Pkce.challengeFormatOk("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"))
                .isTrue();
    }
}
