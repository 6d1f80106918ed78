package dev.warden.api.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.api.access.Principal;
import dev.warden.authorizer.domain.UserId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The credential chain: the administrator token of any form first, then each kind by its prefix. */
class AuthenticatorTest {
    static final Principal.User ALICE =
            new Principal.User(UserId.of("alice"), "tok_1", Principal.Credential.API_TOKEN, List.of("agents:read"));

    @Test
    void theAdministratorTokenMayHaveAnyFormAndIsComparedByHash() {
        Authenticator chain = new Authenticator(List.of(new AdminTokenResolver(Tokens.hash("operator-chosen"))));
        assertThat(chain.authenticate("operator-chosen")).containsInstanceOf(Principal.Admin.class);
        assertThat(chain.authenticate("operator-chosen ")).isEmpty();
        assertThat(chain.authenticate("")).isEmpty();
    }

    @Test
    void aResolverIsAskedOnlyAboutTheTokensItClaimsAndTheFirstThatKnowsOneAnswers() {
        List<String> asked = new ArrayList<>();
        CredentialResolver apiTokens = CredentialResolver.ofKind(TokenKind.API, hash -> {
            asked.add("api");
            return hash.length == 32 ? Optional.of(ALICE) : Optional.empty();
        });
        CredentialResolver sessions = CredentialResolver.ofKind(TokenKind.SESSION, hash -> {
            asked.add("session");
            return Optional.empty();
        });
        Authenticator chain =
                new Authenticator(List.of(new AdminTokenResolver(Tokens.hash("wdn_adm_x")), apiTokens, sessions));

        assertThat(chain.authenticate("wdn_api_abc")).contains(ALICE);
        assertThat(asked).containsExactly("api");
        asked.clear();
        assertThat(chain.authenticate("wdn_ses_abc")).isEmpty();
        assertThat(asked).containsExactly("session");
        asked.clear();
        assertThat(chain.authenticate("wdn_agt_abc"))
                .as("no resolver claims agent tokens here")
                .isEmpty();
        assertThat(asked).isEmpty();
    }

    @Test
    void anOverlongBearerValueIsRefusedWithoutALookup() {
        List<String> asked = new ArrayList<>();
        Authenticator chain = new Authenticator(List.of(CredentialResolver.ofKind(TokenKind.API, hash -> {
            asked.add("api");
            return Optional.of(ALICE);
        })));
        assertThat(chain.authenticate("wdn_api_" + "a".repeat(4100))).isEmpty();
        assertThat(asked).isEmpty();
        assertThat(chain.authenticate("wdn_api_" + "a".repeat(100))).contains(ALICE);
    }
}
