package dev.warden.api.users;

import static dev.warden.api.users.TestUsers.signUp;
import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.testing.Http;
import dev.warden.testing.TestMailServer;
import java.time.Duration;
import java.util.UUID;

/** What the e-mail tests share: fresh addresses, and a user whose address is verified through the mailed link. */
final class EmailITSupport {
    private EmailITSupport() {}

    static String address() {
        return "u" + UUID.randomUUID().toString().substring(0, 8) + "@example.org";
    }

    /** Signs up {@code name}, sets and verifies {@code address}; returns the session. */
    static String verified(Http http, TestMailServer mail, String name, String address, String password)
            throws Exception {
        String session = signUp(http, name, password).get("token").asText();
        assertThat(http.put("/auth/email", session, "{\"email\":\"" + address + "\"}")
                        .status())
                .isEqualTo(202);
        String token = TestMailServer.parts(mail.await(address, 1, Duration.ofSeconds(20)))
                .token()
                .orElseThrow();
        assertThat(http.post("/auth/email/verify", null, "{\"token\":\"" + token + "\"}")
                        .status())
                .isEqualTo(204);
        return session;
    }
}
