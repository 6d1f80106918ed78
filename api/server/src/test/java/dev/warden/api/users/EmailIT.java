package dev.warden.api.users;

import static dev.warden.api.users.TestUsers.aUsername;
import static dev.warden.api.users.TestUsers.credentials;
import static dev.warden.api.users.TestUsers.signUp;
import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.api.oauth.OAuthConfig;
import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.api.users.mail.MailConfig;
import dev.warden.testing.Http;
import dev.warden.testing.TestMailServer;
import dev.warden.testing.TestPlatform;
import jakarta.mail.internet.MimeMessage;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** E-mail addresses and password reset through real HTTP and a real SMTP server (GreenMail). */
class EmailIT {
    static final String PASSWORD = "correct horse battery";
    static final TestMailServer mail = TestMailServer.start();

    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b -> b.users(
                    UsersConfig.builder().argon2(1024, 1, 1).build())
            .rateLimit(RateLimitConfig.builder()
                    .endpoint(AuthEndpoint.SIGN_IN, 10_000, 60)
                    .endpoint(AuthEndpoint.SIGN_UP, 10_000, 60)
                    .endpoint(AuthEndpoint.PASSWORD_RESET, 10_000, 60)
                    .endpoint(AuthEndpoint.EMAIL_CHANGE, 10_000, 60)
                    .build())
            .oauth(OAuthConfig.builder()
                    .keyEncryptionKey(Base64.getEncoder().encodeToString(new byte[32]))
                    .build())
            .mail(mail.config()));

    /** Mail pointed at a port nobody listens on: the outage. */
    @RegisterExtension
    static final TestPlatform down = new TestPlatform(b -> b.roles("api")
            .users(UsersConfig.builder().argon2(1024, 1, 1).build())
            .mail(MailConfig.plain("127.0.0.1", closedPort(), "warden@test.example")));

    /** No mail server configured. */
    @RegisterExtension
    static final TestPlatform none = new TestPlatform(
            b -> b.roles("api").users(UsersConfig.builder().argon2(1024, 1, 1).build()));

    @AfterAll
    static void stopMail() {
        mail.close();
    }

    @Test
    void anAddressIsVerifiedByTheLinkMailedToItOnce() throws Exception {
        Http http = warden.http();
        String session = signUp(http, aUsername(), PASSWORD).get("token").asText();
        String address = address();
        assertThat(http.get("/auth/email", session).json().get("verified").asBoolean())
                .isFalse();

        Http.Response set = http.put("/auth/email", session, "{\"email\":\"" + address + "\"}");
        assertThat(set.status()).as(set.body()).isEqualTo(202);
        MimeMessage message = mail.await(address, 1, Duration.ofSeconds(20));
        assertThat(message.getSubject()).isEqualTo("Confirm your e-mail address");
        TestMailServer.Parts parts = TestMailServer.parts(message);
        String token = parts.token().orElseThrow();
        assertThat(parts.text())
                .contains(
                        warden.http().baseUri().toString().replaceAll("/$", "") + "/auth/email/verify?token=" + token);
        assertThat(parts.html()).contains("href=\"").contains(token);
        assertThat(http.get("/auth/email", session).json().get("verified").asBoolean())
                .isFalse();

        assertThat(storedMail()).as("delivered mail keeps no content").doesNotContain(token);

        Http.Response page = http.get("/auth/email/verify?token=" + token, null);
        assertThat(page.status()).as(page.body()).isEqualTo(200);
        assertThat(page.header("Content-Type").orElseThrow()).startsWith("text/html");
        assertThat(page.header("Content-Security-Policy").orElseThrow()).contains("default-src 'none'");
        assertThat(http.get("/auth/email", session).json().get("verified").asBoolean())
                .isTrue();
        Http.Response again = http.post("/auth/email/verify", null, "{\"token\":\"" + token + "\"}");
        assertThat(again.status()).isEqualTo(400);
        assertThat(again.json().get("code").asText()).isEqualTo("email_verification_invalid");

        String other = signUp(http, aUsername(), PASSWORD).get("token").asText();
        Http.Response taken = http.put("/auth/email", other, "{\"email\":\"" + address.toUpperCase() + "\"}");
        assertThat(taken.status()).isEqualTo(409);
        assertThat(taken.json().get("code").asText()).isEqualTo("email_taken");
        assertThat(http.put("/auth/email", other, "{\"email\":\"not an address\"}")
                        .status())
                .isEqualTo(400);
    }

    @Test
    void aResetLinkSetsANewPasswordOnceAndEndsEverySession() throws Exception {
        Http http = warden.http();
        String name = aUsername();
        String address = address();
        String session = verified(http, name, address);
        String other = http.post("/auth/sign-in", null, credentials(name, PASSWORD))
                .json()
                .get("token")
                .asText();

        String sessionId =
                http.get("/auth/session", session).json().at("/session/id").asText();
        String otherId =
                http.get("/auth/session", other).json().at("/session/id").asText();
        String userId = http.get("/auth/session", session).json().at("/user/id").asText();
        int before = mail.received().size();
        Http.Response unknown = http.post("/auth/password-reset/request", null, "{\"email\":\"" + address() + "\"}");
        assertThat(unknown.status()).isEqualTo(202);
        Http.Response known = http.post("/auth/password-reset/request", null, "{\"email\":\"" + address + "\"}");
        assertThat(known.status()).isEqualTo(202);
        assertThat(known.body()).as("the same answer either way").isEqualTo(unknown.body());
        MimeMessage reset = mail.await(address, 2, Duration.ofSeconds(20));
        assertThat(reset.getSubject()).isEqualTo("Reset your Warden password");
        String token = TestMailServer.parts(reset).token().orElseThrow();
        Thread.sleep(300);
        assertThat(mail.received())
                .as("nothing was sent for the unknown address")
                .hasSize(before + 1);

        Http.Response form = http.get("/auth/password-reset?token=" + token, null);
        assertThat(form.status()).isEqualTo(200);
        assertThat(form.body()).contains("name=\"newPassword\"").contains(token);

        Http.Response weak = complete(http, token, "short");
        assertThat(weak.status()).isEqualTo(400);
        assertThat(weak.json().at("/errors/0/field").asText()).isEqualTo("newPassword");
        Http.Response done = complete(http, token, "a brand new passphrase");
        assertThat(done.status()).as(done.body()).isEqualTo(204);
        assertThat(http.get("/auth/session", session).status()).isEqualTo(401);
        assertThat(http.get("/auth/session", other).status()).isEqualTo(401);
        assertThat(EventsTopic.await(
                                warden.infra().kafkaBootstrap(),
                                warden.topics().events(),
                                e -> e.type().equals("auth.signout")
                                        && (e.text().contains(sessionId)
                                                || e.text().contains(otherId)),
                                2)
                        .stream()
                        .map(e -> e.text().contains(sessionId) ? sessionId : otherId)
                        .sorted()
                        .toList())
                .as("each ended session is an auth.signout")
                .isEqualTo(
                        java.util.stream.Stream.of(sessionId, otherId).sorted().toList());
        assertThat(EventsTopic.await(
                        warden.infra().kafkaBootstrap(),
                        warden.topics().events(),
                        e -> e.type().equals("auth.password_reset") && e.text().contains(userId),
                        1))
                .as("the reset itself is an event (Shared Signals: RISC recovery-activated)")
                .hasSize(1);
        assertThat(http.post("/auth/sign-in", null, credentials(name, PASSWORD)).status())
                .isEqualTo(401);
        assertThat(http.post("/auth/sign-in", null, credentials(name, "a brand new passphrase"))
                        .status())
                .isEqualTo(200);
        Http.Response reused = complete(http, token, "another new passphrase");
        assertThat(reused.json().get("code").asText()).isEqualTo("password_reset_invalid");

        assertThat(http.post("/auth/password-reset/request", null, "{\"email\":\"" + address + "\"}")
                        .status())
                .isEqualTo(202);
        String late = TestMailServer.parts(mail.await(address, 3, Duration.ofSeconds(20)))
                .token()
                .orElseThrow();
        warden.clock().advance(Duration.ofMinutes(31));
        Http.Response expired = complete(http, late, "another new passphrase");
        assertThat(expired.status()).isEqualTo(400);
        assertThat(expired.json().get("code").asText()).isEqualTo("password_reset_expired");
    }

    @Test
    void anUnverifiedAddressGetsNoResetMail() throws Exception {
        Http http = warden.http();
        String session = signUp(http, aUsername(), PASSWORD).get("token").asText();
        String address = address();
        http.put("/auth/email", session, "{\"email\":\"" + address + "\"}");
        mail.await(address, 1, Duration.ofSeconds(20));
        assertThat(http.post("/auth/password-reset/request", null, "{\"email\":\"" + address + "\"}")
                        .status())
                .isEqualTo(202);
        Thread.sleep(500);
        assertThat(mail.to(address)).as("only the verification mail").hasSize(1);
    }

    @Test
    void withTheMailServerDownEveryMailingRequestIsA503AndNothingIsLost() throws Exception {
        Http http = down.http();
        String session = signUp(http, aUsername(), PASSWORD).get("token").asText();
        // The first is queued; its delivery fails, and from then on the outage shows.
        assertThat(http.put("/auth/email", session, "{\"email\":\"" + address() + "\"}")
                        .status())
                .isEqualTo(202);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        Http.Response refused;
        do {
            Thread.sleep(100);
            refused = http.post("/auth/password-reset/request", null, "{\"email\":\"" + address() + "\"}");
        } while (refused.status() != 503 && System.nanoTime() < deadline);
        assertThat(refused.status()).isEqualTo(503);
        assertThat(refused.header("Retry-After")).isPresent();
        assertThat(refused.json().get("code").asText()).isEqualTo("unavailable");
        assertThat(http.put("/auth/email", session, "{\"email\":\"" + address() + "\"}")
                        .status())
                .isEqualTo(503);
        assertThat(queued(down)).as("the first mail waits to be retried").isGreaterThanOrEqualTo(1);
        // Tried at once, then 2 s and 4 s later (MailOutbox.backoff): the worker sleeps until the next retry is
        // due, well within its idle look (30 s).
        deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (attempts(down) < 3 && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        assertThat(attempts(down)).as("retried when due").isGreaterThanOrEqualTo(3);

        Http.Response unconfigured =
                none.http().post("/auth/password-reset/request", null, "{\"email\":\"" + address() + "\"}");
        assertThat(unconfigured.status()).isEqualTo(503);
        assertThat(unconfigured.json().get("detail").asText()).contains("warden.mail.host");
    }

    /** The most attempts any message queued on {@code platform} has had. */
    static int attempts(TestPlatform platform) throws Exception {
        return number(platform, "SELECT coalesce(max(attempts), 0) FROM mail_outbox");
    }

    static String verified(Http http, String name, String address) throws Exception {
        return EmailITSupport.verified(http, mail, name, address, PASSWORD);
    }

    static Http.Response complete(Http http, String token, String password) {
        return http.post(
                "/auth/password-reset/complete",
                null,
                "{\"token\":\"" + token + "\",\"newPassword\":\"" + password + "\"}");
    }

    @Test
    void anOwnerWithAVerifiedAddressIsMailedOnceWhenTheirAgentWaitsForApproval() throws Exception {
        Http http = warden.http();
        com.fasterxml.jackson.databind.JsonNode signedUp = signUp(http, aUsername(), PASSWORD);
        String session = signedUp.get("token").asText();
        String userId = http.get("/auth/session", session).json().at("/user/id").asText();
        String address = address();
        assertThat(http.put("/auth/email", session, "{\"email\":\"" + address + "\"}")
                        .status())
                .isEqualTo(202);
        String token = TestMailServer.parts(mail.await(address, 1, Duration.ofSeconds(20)))
                .token()
                .orElseThrow();
        assertThat(http.get("/auth/email/verify?token=" + token, null).status()).isEqualTo(200);
        com.fasterxml.jackson.databind.JsonNode agent =
                http.post("/agents", session, """
                        {"ownerId":"%s","name":"payer","type":"autonomous","permissions":[
                          {"resource":"pay:*","actions":["refund"],"constraints":{"requireApproval":{}}}]}""".formatted(userId)).json();
        String ask =
                "{\"agentId\":\"" + agent.get("id").asText() + "\",\"action\":\"refund\",\"resource\":\"pay:order-7\"}";
        String approvalId = http.post("/authorize", agent.get("token").asText(), ask)
                .json()
                .get("approvalId")
                .asText();

        // Queued in the request's transaction, sent once it commits: the worker is woken then, not at its next
        // idle look (30 s later).
        MimeMessage message = mail.await(address, 2, Duration.ofSeconds(5));
        assertThat(message.getSubject()).isEqualTo("An agent waits for your approval");
        TestMailServer.Parts parts = TestMailServer.parts(message);
        assertThat(parts.text())
                .contains(agent.get("id").asText())
                .contains("refund")
                .contains("pay:order-7")
                .contains(warden.http().baseUri().toString().replaceAll("/$", "") + "/console/approvals");
        assertThat(parts.html()).contains("/console/approvals");
        // Asking again is the same request: no second message
        assertThat(http.post("/authorize", agent.get("token").asText(), ask)
                        .json()
                        .get("approvalId")
                        .asText())
                .isEqualTo(approvalId);
        Thread.sleep(1500);
        assertThat(mail.to(address)).hasSize(2);
    }

    @Test
    void everyMemberWhoMayDecideAnOrganizationsRequestIsMailedAndNoOneElse() throws Exception {
        Http http = warden.http();
        String ownerAddress = address();
        String adminAddress = address();
        String memberAddress = address();
        String owner = verified(http, aUsername(), ownerAddress);
        String admin = verified(http, aUsername(), adminAddress);
        String member = verified(http, aUsername(), memberAddress);
        String org = http.post("/admin/v1/organizations", owner, "{\"name\":\"Mailed " + aUsername() + "\"}")
                .json()
                .get("id")
                .asText();
        for (String[] joining : new String[][] {{admin, "admin"}, {member, "member"}}) {
            String id =
                    http.get("/auth/session", joining[0]).json().at("/user/id").asText();
            Http.Response added = http.post(
                    "/admin/v1/organizations/" + org + "/members",
                    owner,
                    "{\"userId\":\"" + id + "\",\"role\":\"" + joining[1] + "\"}");
            assertThat(added.status()).as(added.body()).isEqualTo(201);
        }
        String ownerId = http.get("/auth/session", owner).json().at("/user/id").asText();
        Http.Response agent = http.post("/agents", owner, """
                {"ownerId":"%s","tenantId":"%s","name":"payer","type":"autonomous","permissions":[
                  {"resource":"pay:*","actions":["refund"],
                   "constraints":{"requireApproval":{"approvers":"organization_admins"}}}]}""".formatted(ownerId, org));
        assertThat(agent.status()).as(agent.body()).isEqualTo(201);
        Http.Response asked = http.post(
                "/authorize",
                agent.json().get("token").asText(),
                "{\"agentId\":\"" + agent.json().get("id").asText()
                        + "\",\"action\":\"refund\",\"resource\":\"pay:9\"}");
        assertThat(asked.json().get("reason").asText()).isEqualTo("APPROVAL_REQUIRED");

        for (String address : List.of(ownerAddress, adminAddress)) {
            MimeMessage message = mail.await(address, 2, Duration.ofSeconds(5));
            assertThat(message.getSubject()).isEqualTo("An agent waits for your approval");
            assertThat(TestMailServer.parts(message).text()).contains("pay:9");
        }
        Thread.sleep(1500);
        assertThat(mail.to(memberAddress)).hasSize(1); // the verification mail only
    }

    static String address() {
        return EmailITSupport.address();
    }

    static String storedMail() throws Exception {
        StringBuilder all = new StringBuilder();
        try (Connection conn = DriverManager.getConnection(warden.infra().jdbcUrl());
                Statement st = conn.createStatement()) {
            st.execute(
                    "SET search_path TO " + warden.config().postgres().schema().orElseThrow());
            try (ResultSet rs = st.executeQuery("SELECT sealed FROM mail_outbox")) {
                while (rs.next()) {
                    all.append(rs.getString(1));
                }
            }
        }
        return all.toString();
    }

    static int queued(TestPlatform platform) throws Exception {
        return number(platform, "SELECT count(*) FROM mail_outbox WHERE sent_at IS NULL AND given_up_at IS NULL");
    }

    /** The number {@code query} (one row, one column) answers in {@code platform}'s schema. */
    private static int number(TestPlatform platform, String query) throws Exception {
        try (Connection conn = DriverManager.getConnection(platform.infra().jdbcUrl());
                Statement st = conn.createStatement()) {
            st.execute("SET search_path TO "
                    + platform.config().postgres().schema().orElseThrow());
            try (ResultSet rs = st.executeQuery(query)) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    static int closedPort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
