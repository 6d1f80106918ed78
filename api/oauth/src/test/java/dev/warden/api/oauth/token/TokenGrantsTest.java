package dev.warden.api.oauth.token;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.oauth.TokenGrant;
import dev.warden.api.oauth.clients.OAuthClient;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The list of grants: looked up by type, listed in order, one grant per type. */
class TokenGrantsTest {
    record Named(String type, boolean registrable) implements TokenGrant {
        @Override
        public ObjectNode respond(OAuthClient client, Map<String, String> form, String ip) {
            throw new UnsupportedOperationException();
        }
    }

    @Test
    void aGrantIsFoundByItsTypeAndTheListKeepsItsOrder() {
        Named code = new Named("authorization_code", true);
        Named device = new Named("urn:ietf:params:oauth:grant-type:device_code", false);
        Named refresh = new Named("refresh_token", true);
        TokenGrants grants = new TokenGrants(List.of(code, device, refresh));

        assertThat(grants.find("refresh_token")).containsSame(refresh);
        assertThat(grants.find("urn:ietf:params:oauth:grant-type:device_code")).containsSame(device);
        assertThat(grants.find("password")).isEmpty();
        assertThat(grants.find("REFRESH_TOKEN")).as("types are case-sensitive").isEmpty();
        assertThat(grants.find(null)).isEmpty();
        assertThat(grants.types())
                .containsExactly("authorization_code", "urn:ietf:params:oauth:grant-type:device_code", "refresh_token");
        assertThat(grants.registrable()).containsExactly("authorization_code", "refresh_token");
    }

    @Test
    void twoGrantsOfOneTypeAreRefused() {
        assertThatThrownBy(() ->
                        new TokenGrants(List.of(new Named("refresh_token", true), new Named("refresh_token", false))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("two token grants of type refresh_token");
    }
}
