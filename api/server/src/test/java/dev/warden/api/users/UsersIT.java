package dev.warden.api.users;

import static dev.warden.api.users.TestUsers.aUsername;
import static dev.warden.api.users.TestUsers.credentials;
import static dev.warden.api.users.TestUsers.signUp;
import static dev.warden.testing.TestAgents.anAgent;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The username plugin through real HTTP (SPEC Username plugin, Authentication 1 and 3, Errors). */
class UsersIT {
    static final String PASSWORD = "correct horse battery";

    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b -> b.users(UsersConfig.builder()
                    .argon2(1024, 1, 1)
                    .lockout(3, Duration.ofMinutes(15), Duration.ofMinutes(15))
                    .session(Duration.ofHours(1), Duration.ofMinutes(10), Duration.ofHours(3))
                    .build())
            .rateLimit(RateLimitConfig.builder()
                    .endpoint(AuthEndpoint.SIGN_IN, 10_000, 60)
                    .endpoint(AuthEndpoint.SIGN_UP, 10_000, 60)
                    .trustedProxies("127.0.0.1, ::1")
                    .build()));

    static Http http() {
        return warden.http();
    }

    static Http.Response signIn(String username, String password) {
        return http().post("/auth/sign-in", null, credentials(username, password));
    }

    static Http.Response withCookie(String path, String cookie) {
        return http().send(http().builder(path, null).header("Cookie", cookie).GET());
    }

    @Test
    void signUpAnswersTheUserAndASessionTokenAlsoSetAsHttpOnlyLaxCookie() {
        String name = aUsername();
        Http.Response res = http().post("/auth/sign-up", null, """
                {"username":"%s","password":"%s","email":"Ann@Example.org","displayName":"Ann"}""".formatted(name, PASSWORD));

        assertThat(res.status()).as(res.body()).isEqualTo(201);
        JsonNode user = res.json().get("user");
        assertThat(user.get("id").asText()).startsWith("usr_");
        assertThat(user.get("username").asText()).isEqualTo(name);
        assertThat(user.get("email").asText()).isEqualTo("Ann@Example.org");
        assertThat(user.get("displayName").asText()).isEqualTo("Ann");
        String token = res.json().get("token").asText();
        assertThat(token).startsWith("wdn_ses_");
        assertThat(res.body()).doesNotContain(PASSWORD).doesNotContain("argon2");
        String cookie = res.header("Set-Cookie").orElseThrow();
        assertThat(cookie)
                .startsWith("warden_session=" + token)
                .contains("HttpOnly")
                .contains("Path=/")
                .containsIgnoringCase("SameSite=Lax")
                .doesNotContain("Secure")
                .contains("Max-Age=" + Duration.ofHours(3).toSeconds());
    }

    @Test
    void sessionTokenWorksAsBearerTokenAndAsCookieButTheCookieAcceptsOnlySessions() {
        JsonNode signedUp = signUp(http(), aUsername(), PASSWORD);
        String token = signedUp.get("token").asText();

        Http.Response bearer = http().get("/auth/session", token);
        assertThat(bearer.status()).isEqualTo(200);
        assertThat(bearer.json().get("user").get("id"))
                .isEqualTo(signedUp.get("user").get("id"));
        assertThat(bearer.json().get("session").get("id").asText()).startsWith("ses_");
        assertThat(withCookie("/auth/session", "warden_session=" + token).status())
                .isEqualTo(200);

        String apiToken = http().post(
                        "/auth/tokens", warden.adminToken(), "{\"name\":\"t\",\"userId\":\"cookie-user\"}")
                .json()
                .get("token")
                .asText();
        assertThat(withCookie("/agents", "warden_session=" + apiToken).status()).isEqualTo(401);
        assertThat(withCookie("/agents", "warden_session=" + warden.adminToken())
                        .status())
                .isEqualTo(401);
    }

    @Test
    void cookieIsSecureWhenATrustedProxySaysTheClientUsedHttps() {
        Http.Response res = http().send(http().builder("/auth/sign-up", null)
                .header("Content-Type", "application/json")
                .header("X-Forwarded-Proto", "https")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(credentials(aUsername(), PASSWORD))));

        assertThat(res.status()).isEqualTo(201);
        assertThat(res.header("Set-Cookie").orElseThrow()).contains("Secure");
    }

    @Test
    void signInIsCaseInsensitiveAndKeepsTheDisplayForm() {
        String name = "Mixed_" + aUsername();
        signUp(http(), name, PASSWORD);

        Http.Response res = signIn(name.toLowerCase(java.util.Locale.ROOT), PASSWORD);

        assertThat(res.status()).as(res.body()).isEqualTo(200);
        assertThat(res.json().get("user").get("username").asText()).isEqualTo(name);
        assertThat(res.json().get("token").asText()).startsWith("wdn_ses_");
        assertThat(res.header("Set-Cookie")).isPresent();
    }

    @Test
    void usernamesAreUniqueIgnoringCase() {
        String name = aUsername();
        signUp(http(), name, PASSWORD);

        Http.Response again =
                http().post("/auth/sign-up", null, credentials(name.toUpperCase(java.util.Locale.ROOT), PASSWORD));

        assertThat(again.status()).isEqualTo(409);
        assertThat(again.json().get("code").asText()).isEqualTo("username_taken");
        assertThat(again.json().get("errors").get(0).get("field").asText()).isEqualTo("username");
    }

    @Test
    void signUpNamesEveryBadFieldAndChecksLengthBeforePattern() {
        Http.Response res = http().post(
                        "/auth/sign-up",
                        null,
                        "{\"username\":\"a!\",\"password\":\"short\",\"email\":\"not-an-email\",\"extra\":1}");

        assertThat(res.status()).isEqualTo(400);
        assertThat(res.json().get("code").asText()).isEqualTo("validation_invalid");
        assertThat(res.json().get("errors").findValuesAsText("field")).containsExactlyInAnyOrder("extra");
        Http.Response fields = http().post(
                        "/auth/sign-up",
                        null,
                        "{\"username\":\"a!\",\"password\":\"short\",\"email\":\"not-an-email\"}");
        assertThat(fields.json().get("errors").findValuesAsText("field"))
                .containsExactlyInAnyOrder("username", "password", "email");
        assertThat(message(fields, "username")).isEqualTo("must be at least 3 characters");
        assertThat(message(http().post("/auth/sign-up", null, credentials("x".repeat(33), PASSWORD)), "username"))
                .isEqualTo("must be at most 32 characters");
        assertThat(message(http().post("/auth/sign-up", null, credentials("has space", PASSWORD)), "username"))
                .startsWith("must match");
        assertThat(http().post("/auth/sign-up", null, "{\"username\":7}")
                        .json()
                        .get("errors")
                        .findValuesAsText("field"))
                .containsExactlyInAnyOrder("username", "password");
    }

    static String message(Http.Response res, String field) {
        for (JsonNode error : res.json().get("errors")) {
            if (error.get("field").asText().equals(field)) {
                return error.get("message").asText();
            }
        }
        throw new AssertionError("no error for " + field + " in " + res.body());
    }

    @Test
    void anyBadUsernamePasswordPairGetsTheSame401() {
        String name = aUsername();
        signUp(http(), name, PASSWORD);

        Http.Response wrongPassword = signIn(name, "not the password");
        Http.Response unknownUser = signIn(aUsername(), "not the password");
        Http.Response invalidName = signIn("!!", PASSWORD);

        for (Http.Response res : List.of(wrongPassword, unknownUser, invalidName)) {
            assertThat(res.status()).isEqualTo(401);
            assertThat(res.json().get("code").asText()).isEqualTo("INVALID_CREDENTIALS");
            assertThat(res.header("Set-Cookie")).isEmpty();
        }
        // The same answer, but for the request's own id (X-Request-Id, requestId), which tells nothing of the user.
        assertThat(withoutRequestId(unknownUser))
                .isEqualTo(withoutRequestId(wrongPassword))
                .isEqualTo(withoutRequestId(invalidName));
        assertThat(unknownUser.raw().headers().map().keySet())
                .isEqualTo(wrongPassword.raw().headers().map().keySet());
    }

    @Test
    void accountLocksAfterTheConfiguredFailuresEvenForTheRightPasswordThenUnlocks() {
        String name = aUsername();
        signUp(http(), name, PASSWORD);
        for (int i = 0; i < 3; i++) {
            assertThat(signIn(name, "wrong-" + i).status()).isEqualTo(401);
        }

        Http.Response locked = signIn(name, PASSWORD);
        assertThat(locked.status()).isEqualTo(401);
        assertThat(locked.json().get("code").asText()).isEqualTo("INVALID_CREDENTIALS");

        warden.clock().advance(Duration.ofMinutes(15).plusSeconds(1));
        assertThat(signIn(name, PASSWORD).status()).isEqualTo(200);
    }

    @Test
    void failuresFurtherApartThanTheWindowDoNotLockAndSuccessResetsTheCount() {
        String name = aUsername();
        signUp(http(), name, PASSWORD);
        signIn(name, "wrong");
        signIn(name, "wrong");
        warden.clock().advance(Duration.ofMinutes(16));
        signIn(name, "wrong");
        signIn(name, "wrong");
        assertThat(signIn(name, PASSWORD).status()).isEqualTo(200);
        signIn(name, "wrong");
        signIn(name, "wrong");
        assertThat(signIn(name, PASSWORD).status()).isEqualTo(200);
    }

    @Test
    void signOutEndsTheSessionAtOnceAndClearsTheCookie() {
        String token = signUp(http(), aUsername(), PASSWORD).get("token").asText();
        String apiToken = http().post("/auth/tokens", warden.adminToken(), "{\"name\":\"t\",\"userId\":\"nobody\"}")
                .json()
                .get("token")
                .asText();
        assertThat(http().post("/auth/sign-out", apiToken).status()).isEqualTo(403);

        Http.Response out = http().post("/auth/sign-out", token);

        assertThat(out.status()).isEqualTo(204);
        assertThat(out.header("Set-Cookie").orElseThrow())
                .startsWith("warden_session=;")
                .contains("Expires=Thu, 1 Jan 1970");
        assertThat(http().get("/auth/session", token).status()).isEqualTo(401);
        assertThat(http().get("/agents", token).status()).isEqualTo(401);
        assertThat(withCookie("/auth/session", "warden_session=" + token).status())
                .isEqualTo(401);
    }

    @Test
    void aSessionExpiresAfterItsTtlUnlessUsedAndNeverOutlivesItsMaximumLifetime() {
        String idle = signUp(http(), aUsername(), PASSWORD).get("token").asText();
        String active = signUp(http(), aUsername(), PASSWORD).get("token").asText();
        Instant firstExpiry = Instant.parse(http().get("/auth/session", active)
                .json()
                .get("session")
                .get("expiresAt")
                .asText());

        warden.clock().advance(Duration.ofMinutes(50));
        Http.Response used = http().get("/auth/session", active);
        assertThat(used.status()).isEqualTo(200);
        assertThat(Instant.parse(used.json().get("session").get("expiresAt").asText()))
                .isAfter(firstExpiry.plus(Duration.ofMinutes(45)));
        warden.clock().advance(Duration.ofMinutes(11));

        assertThat(http().get("/auth/session", idle).status())
                .as("idle session past its ttl")
                .isEqualTo(401);
        assertThat(http().get("/auth/session", active).status())
                .as("refreshed session")
                .isEqualTo(200);
        for (int i = 0; i < 3; i++) {
            warden.clock().advance(Duration.ofMinutes(40));
            http().get("/auth/session", active);
        }
        assertThat(http().get("/auth/session", active).status())
                .as("past the 3 h maximum lifetime")
                .isEqualTo(401);
    }

    @Test
    void changeUsernameNeedsASessionAndAFreeValidName() {
        String name = aUsername();
        String taken = aUsername();
        String token = signUp(http(), name, PASSWORD).get("token").asText();
        signUp(http(), taken, PASSWORD);
        String renamed = aUsername();

        Http.Response res = http().post("/auth/change-username", token, "{\"username\":\"" + renamed + "\"}");

        assertThat(res.status()).as(res.body()).isEqualTo(200);
        assertThat(res.json().get("user").get("username").asText()).isEqualTo(renamed);
        assertThat(signIn(renamed, PASSWORD).status()).isEqualTo(200);
        assertThat(signIn(name, PASSWORD).status()).isEqualTo(401);
        Http.Response clash = http().post(
                        "/auth/change-username",
                        token,
                        "{\"username\":\"" + taken.toUpperCase(java.util.Locale.ROOT) + "\"}");
        assertThat(clash.status()).isEqualTo(409);
        assertThat(clash.json().get("code").asText()).isEqualTo("username_taken");
        assertThat(http().post("/auth/change-username", token, "{\"username\":\"no\"}")
                        .status())
                .isEqualTo(400);
        String apiToken = http().post("/auth/tokens", token, "{\"name\":\"cli\"}")
                .json()
                .get("token")
                .asText();
        assertThat(http().post("/auth/change-username", apiToken, "{\"username\":\"" + aUsername() + "\"}")
                        .status())
                .isEqualTo(403);
        assertThat(http().post("/auth/change-username", null, "{\"username\":\"" + aUsername() + "\"}")
                        .status())
                .isEqualTo(401);
    }

    @Test
    void usersCreateListAndRevokeTheirOwnApiTokens() {
        JsonNode alice = signUp(http(), aUsername(), PASSWORD);
        String session = alice.get("token").asText();
        String aliceId = alice.get("user").get("id").asText();
        String bobSession = signUp(http(), aUsername(), PASSWORD).get("token").asText();
        String expiresAt = warden.clock().instant().plus(Duration.ofDays(1)).toString();

        Http.Response created = http().post("/auth/tokens", session, """
                {"name":"ci","scopes":["agents:read","agents:write"],"expiresAt":"%s"}""".formatted(expiresAt));

        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.json().get("userId").asText()).isEqualTo(aliceId);
        assertThat(created.json().get("scopes").toString()).isEqualTo("[\"agents:read\",\"agents:write\"]");
        String apiToken = created.json().get("token").asText();
        String tokenId = created.json().get("id").asText();
        assertThat(http().post("/agents", apiToken, anAgent(aliceId).json()).status())
                .isEqualTo(201);
        assertThat(http().get("/auth/tokens/current", apiToken).json().get("id").asText())
                .isEqualTo(tokenId);
        assertThat(http().get("/auth/tokens/current", session).status())
                .as("current takes API tokens only")
                .isEqualTo(403);
        assertThat(http().get("/auth/tokens", session).json().findValuesAsText("id"))
                .containsExactly(tokenId);
        assertThat(http().get("/auth/tokens", bobSession).json()).isEmpty();
        assertThat(http().post("/auth/tokens", apiToken, "{\"name\":\"more\"}").status())
                .isEqualTo(403);
        assertThat(http().post("/auth/tokens", session, "{\"name\":\"x\",\"userId\":\"someone-else\"}")
                        .status())
                .isEqualTo(403);
        assertThat(http().delete("/auth/tokens/" + tokenId, bobSession).status())
                .isEqualTo(404);

        assertThat(http().delete("/auth/tokens/" + tokenId, session).status()).isEqualTo(204);
        assertThat(http().get("/agents", apiToken).status()).isEqualTo(401);
        assertThat(http().get("/auth/tokens", session).json()).isEmpty();
    }

    @Test
    void anApiTokenStopsWorkingAtItsExpiry() {
        String session = signUp(http(), aUsername(), PASSWORD).get("token").asText();
        String expiresAt = warden.clock().instant().plus(Duration.ofMinutes(5)).toString();
        String apiToken = http().post(
                        "/auth/tokens", session, "{\"name\":\"short\",\"expiresAt\":\"" + expiresAt + "\"}")
                .json()
                .get("token")
                .asText();
        assertThat(http().get("/auth/tokens/current", apiToken).status()).isEqualTo(200);
        assertThat(http().post("/auth/tokens", session, "{\"name\":\"past\",\"expiresAt\":\"2001-01-01T00:00:00Z\"}")
                        .status())
                .isEqualTo(400);

        warden.clock().advance(Duration.ofMinutes(6));

        assertThat(http().get("/auth/tokens/current", apiToken).status()).isEqualTo(401);
    }

    @Test
    void authEventsArePublishedWithoutSecretsAndFailuresLookTheSameForEveryCause() {
        String name = aUsername();
        String unknown = aUsername();
        JsonNode signedUp = signUp(http(), name, PASSWORD);
        String userId = signedUp.get("user").get("id").asText();
        String session = signIn(name, PASSWORD).json().get("token").asText();
        signIn(name, "wrong password");
        signIn(unknown, "wrong password");
        http().post("/auth/sign-out", session);

        List<EventsTopic.Event> events = EventsTopic.await(
                warden.infra().kafkaBootstrap(),
                warden.topics().events(),
                e -> e.type().startsWith("auth.")
                        && (e.text().contains(userId)
                                || e.text().contains(name)
                                || e.text().contains(unknown)),
                5);

        List<String> types =
                new ArrayList<>(events.stream().map(EventsTopic.Event::type).toList());
        assertThat(types).containsExactly("auth.signin", "auth.signin", "auth.failed", "auth.failed", "auth.signout");
        for (EventsTopic.Event e : events) {
            assertThat(e.text())
                    .doesNotContain(PASSWORD)
                    .doesNotContain("wrong password")
                    .doesNotContain("wdn_")
                    .doesNotContain("argon2");
        }
        assertThat(events.get(0).json().get("data").get("method").asText()).isEqualTo("sign-up");
        assertThat(events.get(1).json().get("userId").asText()).isEqualTo(userId);
        assertThat(events.get(1).key()).isEqualTo(userId);
        JsonNode knownFailure = events.get(2).json();
        JsonNode unknownFailure = events.get(3).json();
        assertThat(knownFailure.get("data").get("username").asText()).isEqualTo(name);
        assertThat(unknownFailure.get("data").get("username").asText()).isEqualTo(unknown);
        assertThat(knownFailure.has("userId")).isFalse();
        assertThat(knownFailure.toString()).doesNotContain(userId);
        assertThat(fieldNames(knownFailure)).isEqualTo(fieldNames(unknownFailure));
        assertThat(fieldNames(knownFailure.get("data"))).isEqualTo(fieldNames(unknownFailure.get("data")));
        assertThat(events.get(2).key()).isEqualTo(events.get(3).key());
        assertThat(events.get(4).json().get("data").get("session").get("id").asText())
                .startsWith("ses_");
    }

    static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static com.fasterxml.jackson.databind.JsonNode withoutRequestId(Http.Response res) {
        com.fasterxml.jackson.databind.node.ObjectNode body = res.json().deepCopy();
        assertThat(body.remove("requestId")).as("the problem names its request").isNotNull();
        return body;
    }

    @Test
    void everySignInSignOutRefusalAndLockoutIsInTheAuditLog() throws Exception {
        String name = aUsername();
        String userId = signUp(http(), name, PASSWORD).get("user").get("id").asText();
        String session = signIn(name, PASSWORD).json().get("token").asText();
        assertThat(http().post("/auth/sign-out", session).status()).isEqualTo(204);
        for (int i = 0; i < 3; i++) {
            assertThat(signIn(name, "wrong password " + i).status()).isEqualTo(401);
        }
        JsonNode entries = TotpIT.awaitAudit(http(), warden, userId, "admin.account.locked");
        List<String> actions = new ArrayList<>();
        List<String> methods = new ArrayList<>();
        for (JsonNode e : entries) {
            actions.add(e.get("action").asText());
            if (e.get("action").asText().equals("admin.account.session.started")) {
                methods.add(e.at("/parameters/method").asText());
            }
        }
        assertThat(actions)
                .as("the person's own entries")
                .contains("admin.account.session.started", "admin.account.session.ended", "admin.account.locked")
                .doesNotContain("admin.account.signin.failed");
        assertThat(methods).containsExactlyInAnyOrder("sign-up", "password");
        // Refused sign-ins name no account: the username as sent, for the administrator only.
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        List<JsonNode> refused = new ArrayList<>();
        while (refused.size() < 3 && System.nanoTime() < deadline) {
            refused.clear();
            for (JsonNode e :
                    http().get("/audit?limit=1000", warden.adminToken()).json()) {
                if (e.get("action").asText().equals("admin.account.signin.failed")
                        && e.at("/parameters/username").asText().equals(name)) {
                    refused.add(e);
                }
            }
            Thread.sleep(100);
        }
        assertThat(refused).hasSize(3);
        assertThat(refused).allSatisfy(e -> {
            assertThat(e.path("userId").asText("")).isEmpty();
            assertThat(e.at("/parameters/reason").asText()).isEqualTo("invalid_credentials");
            assertThat(e.toString()).doesNotContain("wrong password");
        });
        assertThat(http().get("/audit?limit=1000", session).status())
                .as("the signed-out session reads nothing")
                .isEqualTo(401);
    }
}
